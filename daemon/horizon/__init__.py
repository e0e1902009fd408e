"""horizon: a bounded working memory for the bees of a hive."""

__version__ = "0.1.0"
