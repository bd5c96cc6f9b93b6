"""Text of a paper: abstract Markdown/TeX → HTML with MathML and plain text; derived titles."""
