"""Small helpers every part of the project shares: the error type, paths, the build cache, log redirection."""
