"""The build cache: what the next build can reuse, and whether nothing changed at all."""
