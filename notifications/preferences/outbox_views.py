"""The tenant admin's decisions in the delivery log: send an uncertain row again, or mark it delivered."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext_lazy
from django.views import View

from accounts.views import TenantAdminRequiredMixin
from notifications.models import Delivery, WebhookEvent
from notifications.outbox_decisions import (
    OutboxDecisionRefused,
    RecipientInactive,
    delivery_mark_delivered,
    delivery_resend,
    webhook_event_mark_delivered,
    webhook_event_resend,
)


class _DecisionView(TenantAdminRequiredMixin, View):
    done_message = ""
    inactive_message = ""

    def decide(self, pk: int, actor) -> None:
        raise NotImplementedError

    def post(self, request, pk: int):
        try:
            self.decide(pk, request.user)
        except (Delivery.DoesNotExist, WebhookEvent.DoesNotExist) as exc:
            raise Http404 from exc
        except RecipientInactive:
            messages.error(request, self.inactive_message)
        except OutboxDecisionRefused as exc:
            messages.error(request, exc.text)
        else:
            messages.success(request, self.done_message)
        return redirect("settings:deliveries")


class DeliveryResendView(_DecisionView):
    done_message = gettext_lazy("Die E-Mail wird erneut gesendet.")
    inactive_message = gettext_lazy("Nicht gesendet: Der Empfänger wurde im Team deaktiviert.")

    def decide(self, pk: int, actor) -> None:
        delivery_resend(delivery_id=pk, actor=actor)


class DeliveryMarkDeliveredView(_DecisionView):
    done_message = gettext_lazy("Die E-Mail ist als zugestellt markiert.")

    def decide(self, pk: int, actor) -> None:
        delivery_mark_delivered(delivery_id=pk, actor=actor)


class WebhookEventResendView(_DecisionView):
    done_message = gettext_lazy("Das Webhook-Ereignis wird erneut gesendet.")
    inactive_message = gettext_lazy("Nicht gesendet: Der Webhook ist deaktiviert.")

    def decide(self, pk: int, actor) -> None:
        webhook_event_resend(event_id=pk, actor=actor)


class WebhookEventMarkDeliveredView(_DecisionView):
    done_message = gettext_lazy("Das Webhook-Ereignis ist als zugestellt markiert.")

    def decide(self, pk: int, actor) -> None:
        webhook_event_mark_delivered(event_id=pk, actor=actor)
