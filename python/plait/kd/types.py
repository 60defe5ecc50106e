"""Classes of plait values (`kd.types.DataSlice`, ...)."""

from plait._plait import DataItem, DataSlice, JaggedShape

__all__ = ["DataItem", "DataSlice", "JaggedShape"]
