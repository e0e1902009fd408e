"""Who condenses answers and folds batches into the récit."""

from horizon.summarize.base import Summarizer
from horizon.summarize.truncation import Truncation

__all__ = ["Summarizer", "Truncation"]
