"""Classes of plait values (`kd.types.DataSlice`, ...)."""

from plait._plait import DataItem, DataSlice, Edge, JaggedShape

__all__ = ["DataItem", "DataSlice", "Edge", "JaggedShape"]
