"""Small helpers every part of the project shares: the project's error type, the build cache."""
