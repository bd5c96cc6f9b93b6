"""Reading: list files (bytes) → entries and diagnostics, one module per input format."""
