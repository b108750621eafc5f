"""Views of the portal, by page group; each only parses input and calls selectors or services."""
