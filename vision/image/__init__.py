"""The photo itself: decoding with size limits, quality checks (blur, glare, darkness), gradients."""
