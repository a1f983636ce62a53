"""Recipes (seed 002): a successful session kept as data, rerun without a model."""
