"""plait: jagged, schema-typed multidimensional data with a Koda-style API.

    from plait import kd
    x = kd.slice([[1, 2], [3]])
"""

from plait import kd

__all__ = ["kd"]
