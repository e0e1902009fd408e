"""Who condenses answers and folds batches into the récit."""

from horizon.summarize.base import TRUNCATION, Condensed, Folded, Summarizer
from horizon.summarize.truncation import Truncation

__all__ = ["TRUNCATION", "Condensed", "Folded", "Summarizer", "Truncation"]
