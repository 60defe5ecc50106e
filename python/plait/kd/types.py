"""Classes of plait values (`kd.types.DataSlice`, ...)."""

from plait._plait import DataBag, DataItem, DataSlice, Edge, JaggedShape

__all__ = ["DataBag", "DataItem", "DataSlice", "Edge", "JaggedShape"]
