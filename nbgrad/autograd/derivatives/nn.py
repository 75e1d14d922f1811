"""Differentiable VJPs (see derivatives/__init__.py)."""
