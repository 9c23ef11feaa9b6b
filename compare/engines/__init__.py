"""One module per family, each defining FAMILY (see compare.registry.Family)."""
