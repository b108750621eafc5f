"""Date and number formats per language where Django's own do not fit the product (``FORMAT_MODULE_PATH``)."""
