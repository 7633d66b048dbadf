"""The rules: one registry, one module per family of codes, each rule with its documentation."""
