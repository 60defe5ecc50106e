"""`kd.streams`: values that come one after another, computed by tasks on
executors (Koda's STREAM and EXECUTOR).

The operators are builtins of the expression engine (computed in Rust,
`crates/plait-expr/src/builtins/streams.rs`, over `plait_expr::stream`);
they return at once with a stream, and the work runs on an executor.
Streams, readers, writers and executors come to Python as
`kd.types.Stream`, `StreamReader`, `StreamWriter` and `Executor`; waits
release the GIL.
"""

from plait.kd import _builtins, qtypes


def get_stream_qtype(value_qtype):
    """Returns the QType of streams of `value_qtype` values.

    Args:
      value_qtype: a QType (`kd.qtypes.DATA_SLICE`, ...).

    Examples:
      >>> kd.streams.get_stream_qtype(kd.qtypes.DATA_BAG)
      STREAM[DATA_BAG]
      >>> kd.streams.make(1).qtype == kd.streams.get_stream_qtype(kd.qtypes.DATA_SLICE)
      True
    """
    if not isinstance(value_qtype, qtypes.QType):
        raise ValueError(f"kd.streams.get_stream_qtype: expected a QType, got {type(value_qtype).__name__}")
    return qtypes._stream_of(value_qtype)


_builtins.export(globals(), "kd.streams")
