//! `kd.streams.*`: operators over streams (see `crate::stream`), and the
//! calls of `kd.parallel` and `kd.functor.call_fn_*_when_parallel`.
//!
//! Every operator returns at once with its output stream; the work runs on
//! an executor (the `executor=` argument, else the current one), reading
//! its inputs asynchronously ([`stream::consume`]) and writing the output
//! as results come. An error in a functor closes the output with that
//! error; dropping the output (or cancelling it) stops outstanding work.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};
use plait_ops::registry::{self, Value};

use super::control_flow::{call_fn, describe, functor_arg, mask_item};
use super::{int_of, required, take, type_name};
use crate::functor::Compiled;
use crate::operator::{Builtin, BuiltinDef, CallArgs};
use crate::stream::{self, Awaited, Cancel, Executor, Stream, Writer, as_executor, as_stream, consume, value_type_name};
use crate::value::ExprValue;

const MAKE: &str = "kd.streams.make";
const MAP: &str = "kd.streams.map";
const MAP_UNORDERED: &str = "kd.streams.map_unordered";
const FLAT_MAP_CHAINED: &str = "kd.streams.flat_map_chained";
const FLAT_MAP_INTERLEAVED: &str = "kd.streams.flat_map_interleaved";
const FOREACH: &str = "kd.streams.foreach";
const WHILE: &str = "kd.streams.while_";
const CALL: &str = "kd.streams.call";
const SYNC_WAIT: &str = "kd.streams.sync_wait";

macro_rules! def {
    ($name:expr, $sig:expr, $doc:expr, $call:expr) => {
        BuiltinDef { name: $name, aliases: &[], signature: $sig, doc: $doc, call: $call, deterministic: false, role: Builtin::Other }
    };
}

pub const DEFS: &[BuiltinDef] = &[
    def!("kd.streams.make", "*items, value_type_as=unspecified", MAKE_DOC, make),
    def!("kd.streams.from_1d_slice", "slice_", FROM_1D_SLICE_DOC, from_1d_slice),
    def!("kd.streams.chain", "*streams, value_type_as=unspecified", CHAIN_DOC, chain),
    def!("kd.streams.chain_from_stream", "stream_of_streams", CHAIN_FROM_STREAM_DOC, chain_from_stream),
    def!("kd.streams.interleave", "*streams, value_type_as=unspecified", INTERLEAVE_DOC, interleave),
    def!("kd.streams.interleave_from_stream", "stream_of_streams", INTERLEAVE_FROM_STREAM_DOC, interleave_from_stream),
    def!("kd.streams.map", "stream, fn, *, executor=unspecified, value_type_as=None", MAP_DOC, map),
    def!("kd.streams.map_unordered", "stream, fn, *, executor=unspecified, value_type_as=None", MAP_UNORDERED_DOC, map_unordered),
    def!("kd.streams.flat_map_chained", "stream, fn, *, executor=unspecified, value_type_as=None", FLAT_MAP_CHAINED_DOC, flat_map_chained),
    def!(
        "kd.streams.flat_map_interleaved",
        "stream, fn, *, executor=unspecified, value_type_as=None",
        FLAT_MAP_INTERLEAVED_DOC,
        flat_map_interleaved
    ),
    def!("kd.streams.reduce", "fn, stream, initial_value, *, executor=unspecified", REDUCE_DOC, reduce),
    def!("kd.streams.reduce_concat", "stream, initial_value, *, ndim=1, executor=unspecified", REDUCE_CONCAT_DOC, reduce_concat),
    def!("kd.streams.reduce_stack", "stream, initial_value, *, ndim=0, executor=unspecified", REDUCE_STACK_DOC, reduce_stack),
    def!(
        "kd.streams.foreach",
        "stream, body_fn, *, finalize_fn=unspecified, condition_fn=unspecified, executor=unspecified, returns=unspecified, \
         yields=unspecified, yields_interleaved=unspecified, **initial_state",
        FOREACH_DOC,
        foreach
    ),
    def!(
        "kd.streams.while_",
        "condition_fn, body_fn, *, executor=unspecified, returns=unspecified, yields=unspecified, yields_interleaved=unspecified, \
         **initial_state",
        WHILE_DOC,
        while_
    ),
    def!("kd.streams.call", "fn, *args, executor=unspecified, return_type_as=None, **kwargs", CALL_DOC, call),
    def!("kd.streams.await_", "arg", AWAIT_DOC, await_),
    def!("kd.streams.sync_wait", "stream", SYNC_WAIT_DOC, sync_wait),
    def!("kd.streams.unsafe_blocking_wait", "stream", UNSAFE_BLOCKING_WAIT_DOC, unsafe_blocking_wait),
    def!("kd.streams.current_executor", "", CURRENT_EXECUTOR_DOC, current_executor),
    def!("kd.streams.get_default_executor", "", GET_DEFAULT_EXECUTOR_DOC, get_default_executor),
    def!("kd.streams.get_eager_executor", "", GET_EAGER_EXECUTOR_DOC, get_eager_executor),
    def!("kd.streams.make_executor", "*, thread_limit=0", MAKE_EXECUTOR_DOC, make_executor),
    def!(
        "kd.functor.call_fn_normally_when_parallel",
        "fn, *args, return_type_as=None, **kwargs",
        CALL_FN_NORMALLY_DOC,
        call_fn_normally_when_parallel
    ),
    def!(
        "kd.functor.call_fn_returning_stream_when_parallel",
        "fn, *args, return_type_as=unspecified, **kwargs",
        CALL_FN_RETURNING_STREAM_DOC,
        call_fn_returning_stream_when_parallel
    ),
    def!("kd.parallel._call", "executor, fn, args, kwargs, return_type=unspecified", PARALLEL_CALL_DOC, parallel_call),
];

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A stream argument (Koda's message for anything else).
fn stream_arg(op: &str, what: &str, v: ExprValue) -> Result<Arc<Stream>> {
    as_stream(&v).ok_or_else(|| Error::value(op, format!("expected a stream, got {what}: {}", type_name(&v))))
}

/// The `executor=` argument, else the current executor.
fn executor_arg(op: &str, v: Option<ExprValue>) -> Result<Executor> {
    match v {
        None => Ok(stream::current_executor()),
        Some(v) => as_executor(&v).ok_or_else(|| Error::value(op, format!("expected an executor, got executor: {}", type_name(&v)))),
    }
}

/// The value type a `value_type_as=` argument names (DATA_SLICE when unspecified).
fn value_type_of(v: Option<&ExprValue>) -> String {
    v.map_or_else(|| "DATA_SLICE".to_string(), value_type_name)
}

/// The error of a functor whose result has another type than declared.
fn wrong_type(op: &str, expected: &str, got: &ExprValue) -> Error {
    Error::value(
        op,
        format!(
            "The functor was called with `{expected}` as the return type, but the computation resulted in type `{}` instead. \
             You can specify the expected output type via the `value_type_as=` parameter.",
            value_type_name(got)
        ),
    )
}

/// The output of a loop over a stream: its writer, shared by the callbacks.
type Out = Arc<Writer>;

fn new_out(value_type: &str) -> (ExprValue, Out) {
    let (stream, writer) = Stream::new(value_type);
    (stream.value(), Arc::new(writer))
}

/// The item callback of [`consume`] that writes each item to `out`, and
/// asks for more while `out` still has readers.
fn forward_to(out: Out) -> impl FnMut(ExprValue) -> Result<bool> + Send + 'static {
    move |item| {
        out.write(item);
        Ok(!out.abandoned())
    }
}

// ---------------------------------------------------------------- making streams

const MAKE_DOC: &str = "Returns a stream of the given items, in order, closed.

The items must all be of one type (DataSlices of any shape and schema, or
DataBags, ...); a ValueError is raised otherwise. With no items, the stream
holds values of the type of `value_type_as` (DataSlices by default).

Args:
  *items: the items.
  value_type_as: a value of the type of the items.

Examples:
  >>> kd.streams.make(1, 2, 3).read_all(timeout=None)
  [DataItem(1, schema: INT32), DataItem(2, schema: INT32), DataItem(3, schema: INT32)]
  >>> kd.streams.make(kd.bag())
  stream[DATA_BAG]
  >>> kd.streams.make(1, kd.bag())
  Traceback (most recent call last):
  ...
  ValueError: kd.streams.make: all items must have the same type";

fn make(_: &str, mut args: CallArgs) -> Result<ExprValue> {
    let value_type_as = take(&mut args, 1);
    let value_type = match args.var_args.first() {
        Some(first) => value_type_name(first),
        None => value_type_of(value_type_as.as_ref()),
    };
    if args.var_args.iter().any(|v| value_type_name(v) != value_type) {
        return Err(Error::value(MAKE, "all items must have the same type"));
    }
    Ok(Stream::from_items(&value_type, args.var_args).value())
}

const FROM_1D_SLICE_DOC: &str = "Returns a stream of the items of a one-dimensional DataSlice, as DataItems.

Missing items are kept (as missing DataItems); the items keep the slice's
schema and DataBag. A DataSlice of another rank raises a ValueError.

Args:
  slice_: a one-dimensional DataSlice.

Examples:
  >>> kd.streams.from_1d_slice(kd.slice([1, None, 3])).read_all(timeout=None)
  [DataItem(1, schema: INT32), DataItem(None, schema: INT32), DataItem(3, schema: INT32)]";

fn from_1d_slice(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.streams.from_1d_slice";
    let x = super::slice_arg(OP, "slice_", required(op, &mut args, 0)?)?;
    if x.rank() != 1 {
        return Err(Error::value(OP, format!("expected a 1D data slice, got {} dimensions", x.rank())));
    }
    let items = (0..x.size()).map(|i| crate::functor::item_at(&x, i).map(ExprValue::slice)).collect::<Result<Vec<_>>>()?;
    Ok(Stream::from_items("DATA_SLICE", items).value())
}

/// The streams of `*streams`, and their common value type.
fn streams_of(op: &str, values: Vec<ExprValue>, value_type_as: Option<&ExprValue>) -> Result<(Vec<Arc<Stream>>, String)> {
    let streams = values.into_iter().map(|v| stream_arg(op, "streams", v)).collect::<Result<Vec<_>>>()?;
    let value_type = match (streams.first(), value_type_as) {
        (Some(s), _) => s.value_type().to_string(),
        (None, v) => value_type_of(v),
    };
    if streams.iter().any(|s| s.value_type() != value_type) {
        return Err(Error::value(op, "all input streams must have the same value type"));
    }
    Ok((streams, value_type))
}

/// Streams chained one after another into an output: fed one by one
/// ([`Chain::push`]), ended by [`Chain::finish`].
struct Chain {
    out: Out,
    state: Mutex<ChainState>,
}

#[derive(Default)]
struct ChainState {
    queue: VecDeque<Arc<Stream>>,
    busy: bool,
    finished: bool,
}

impl Chain {
    fn new(out: Out) -> Arc<Chain> {
        Arc::new(Chain { out, state: Mutex::new(ChainState::default()) })
    }

    fn push(self: &Arc<Chain>, s: Arc<Stream>) {
        let mut state = lock(&self.state);
        state.queue.push_back(s);
        if !state.busy {
            state.busy = true;
            drop(state);
            self.next();
        }
    }

    /// No more streams come (`Err`: the output ends with that error at once).
    fn finish(self: &Arc<Chain>, end: Result<()>) {
        let mut state = lock(&self.state);
        state.finished = true;
        match end {
            Err(e) => self.out.close(Err(e)),
            Ok(()) if !state.busy => self.out.close(Ok(())),
            Ok(()) => {}
        }
    }

    /// Forwards the next queued stream (the caller set `busy`).
    fn next(self: &Arc<Chain>) {
        let Some(s) = lock(&self.state).queue.pop_front() else { return };
        let me = self.clone();
        consume(s, Executor::eager(), forward_to(self.out.clone()), move |end| {
            if let Err(e) = end {
                me.out.close(Err(e));
                return;
            }
            let mut state = lock(&me.state);
            if !state.queue.is_empty() {
                drop(state);
                me.next();
            } else {
                state.busy = false;
                if state.finished {
                    me.out.close(Ok(()));
                }
            }
        });
    }
}

/// Streams interleaved into an output as their items come.
struct Interleave {
    out: Out,
    state: Mutex<(usize, bool)>,
}

impl Interleave {
    fn new(out: Out) -> Arc<Interleave> {
        Arc::new(Interleave { out, state: Mutex::new((0, false)) })
    }

    fn push(self: &Arc<Interleave>, s: Arc<Stream>) {
        lock(&self.state).0 += 1;
        let me = self.clone();
        consume(s, Executor::eager(), forward_to(self.out.clone()), move |end| {
            if let Err(e) = end {
                me.out.close(Err(e));
                return;
            }
            let mut state = lock(&me.state);
            state.0 -= 1;
            if state.0 == 0 && state.1 {
                me.out.close(Ok(()));
            }
        });
    }

    fn finish(self: &Arc<Interleave>, end: Result<()>) {
        let mut state = lock(&self.state);
        state.1 = true;
        match end {
            Err(e) => self.out.close(Err(e)),
            Ok(()) if state.0 == 0 => self.out.close(Ok(())),
            Ok(()) => {}
        }
    }
}

/// A feed of streams into an output, chained or interleaved.
#[derive(Clone)]
enum Feed {
    Chain(Arc<Chain>),
    Interleave(Arc<Interleave>),
}

impl Feed {
    fn push(&self, s: Arc<Stream>) {
        match self {
            Feed::Chain(c) => c.push(s),
            Feed::Interleave(i) => i.push(s),
        }
    }

    fn finish(&self, end: Result<()>) {
        match self {
            Feed::Chain(c) => c.finish(end),
            Feed::Interleave(i) => i.finish(end),
        }
    }
}

/// The streams of `outer` fed into `feed` as they come.
fn feed_from_stream(outer: Arc<Stream>, feed: Feed) {
    let feed2 = feed.clone();
    consume(
        outer,
        Executor::eager(),
        move |item| match as_stream(&item) {
            Some(s) => {
                feed.push(s);
                Ok(true)
            }
            None => Err(Error::value("kd.streams", format!("expected a stream of streams, got an item of type {}", type_name(&item)))),
        },
        move |end| feed2.finish(end),
    );
}

const CHAIN_DOC: &str = "Returns a stream of the items of the given streams, one stream after another.

The streams must have one value type (a ValueError otherwise); with no
streams, the value type is that of `value_type_as` (DataSlices by
default). Items are forwarded as the input streams produce them.

Args:
  *streams: the streams to chain.
  value_type_as: a value of the type of the items.

Examples:
  >>> kd.streams.chain(kd.streams.make(1), kd.streams.make(2, 3)).read_all(timeout=None)
  [DataItem(1, schema: INT32), DataItem(2, schema: INT32), DataItem(3, schema: INT32)]
  >>> kd.streams.chain().read_all(timeout=None)
  []";

fn chain(_: &str, mut args: CallArgs) -> Result<ExprValue> {
    let value_type_as = take(&mut args, 1);
    let (streams, value_type) = streams_of("kd.streams.chain", args.var_args, value_type_as.as_ref())?;
    let (value, out) = new_out(&value_type);
    let feed = Chain::new(out);
    for s in streams {
        feed.push(s);
    }
    feed.finish(Ok(()));
    Ok(value)
}

const CHAIN_FROM_STREAM_DOC: &str = "Returns a stream of the items of the streams of a stream, one stream after another.

Args:
  stream_of_streams: a stream of streams.

Examples:
  >>> streams = kd.streams.make(kd.streams.make(1, 2), kd.streams.make(3))
  >>> kd.streams.chain_from_stream(streams).read_all(timeout=None)
  [DataItem(1, schema: INT32), DataItem(2, schema: INT32), DataItem(3, schema: INT32)]";

/// The value type of the streams of a stream of streams.
fn inner_type(op: &str, outer: &Stream) -> Result<String> {
    let t = outer.value_type();
    t.strip_prefix("STREAM[")
        .and_then(|r| r.strip_suffix(']'))
        .map(str::to_string)
        .ok_or_else(|| Error::value(op, format!("expected a stream of streams, got stream_of_streams: STREAM[{t}]")))
}

fn chain_from_stream(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.streams.chain_from_stream";
    let outer = stream_arg(OP, "stream_of_streams", required(op, &mut args, 0)?)?;
    let (value, out) = new_out(&inner_type(OP, &outer)?);
    feed_from_stream(outer, Feed::Chain(Chain::new(out)));
    Ok(value)
}

const INTERLEAVE_DOC: &str = "Returns a stream of the items of the given streams, as they come.

The items of each input stream keep their order; how the streams are
interleaved is not specified (items are written as the inputs produce
them). The streams must have one value type.

Args:
  *streams: the streams to interleave.
  value_type_as: a value of the type of the items.

Examples:
  >>> s = kd.streams.interleave(kd.streams.make(1), kd.streams.make(2, 3))
  >>> sorted(x.to_py() for x in s.read_all(timeout=None))
  [1, 2, 3]";

fn interleave(_: &str, mut args: CallArgs) -> Result<ExprValue> {
    let value_type_as = take(&mut args, 1);
    let (streams, value_type) = streams_of("kd.streams.interleave", args.var_args, value_type_as.as_ref())?;
    let (value, out) = new_out(&value_type);
    let feed = Interleave::new(out);
    for s in streams {
        feed.push(s);
    }
    feed.finish(Ok(()));
    Ok(value)
}

const INTERLEAVE_FROM_STREAM_DOC: &str = "Returns a stream of the items of the streams of a stream, as they come.

Args:
  stream_of_streams: a stream of streams.

Examples:
  >>> streams = kd.streams.make(kd.streams.make(1, 2), kd.streams.make(3))
  >>> sorted(x.to_py() for x in kd.streams.interleave_from_stream(streams).read_all(timeout=None))
  [1, 2, 3]";

fn interleave_from_stream(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.streams.interleave_from_stream";
    let outer = stream_arg(OP, "stream_of_streams", required(op, &mut args, 0)?)?;
    let (value, out) = new_out(&inner_type(OP, &outer)?);
    feed_from_stream(outer, Feed::Interleave(Interleave::new(out)));
    Ok(value)
}

// ---------------------------------------------------------------- maps

/// Where the results of a map go.
enum Sink {
    /// In input order, into the output.
    Ordered(Out),
    /// As they come, into the output.
    Unordered(Out),
    /// Streams, chained or interleaved into the output.
    Streams(Feed, bool),
}

/// The bookkeeping of a map: results waiting for their turn.
struct MapState {
    scheduled: usize,
    done: usize,
    input_done: bool,
    failed: bool,
    next: usize,
    pending: BTreeMap<usize, ExprValue>,
}

struct Mapper {
    op: &'static str,
    f: Arc<Compiled>,
    expected: String,
    executor: Executor,
    sink: Sink,
    state: Mutex<MapState>,
}

impl Mapper {
    fn out_abandoned(&self) -> bool {
        match &self.sink {
            Sink::Ordered(out) | Sink::Unordered(out) => out.abandoned(),
            Sink::Streams(Feed::Chain(c), _) => c.out.abandoned(),
            Sink::Streams(Feed::Interleave(i), _) => i.out.abandoned(),
        }
    }

    fn close(&self, end: Result<()>) {
        match &self.sink {
            Sink::Ordered(out) | Sink::Unordered(out) => out.close(end),
            Sink::Streams(feed, _) => feed.finish(end),
        }
    }

    fn emit(&self, item: ExprValue) {
        match &self.sink {
            Sink::Ordered(out) | Sink::Unordered(out) => out.write(item),
            Sink::Streams(feed, _) => feed.push(as_stream(&item).expect("checked to be a stream")),
        }
    }

    fn ordered(&self) -> bool {
        matches!(self.sink, Sink::Ordered(_) | Sink::Streams(_, true))
    }

    /// Item `i` of the input: its call, scheduled on the executor.
    fn schedule(self: &Arc<Mapper>, i: usize, item: ExprValue) {
        let me = self.clone();
        self.executor.schedule(Box::new(move || {
            let result = if lock(&me.state).failed || me.out_abandoned() || stream::cancelled() {
                Err(stream::cancelled_error(me.op))
            } else {
                call_fn(&me.f, vec![item], Vec::new())
                    .and_then(|r| if value_type_name(&r) == me.expected { Ok(r) } else { Err(wrong_type(me.op, &me.expected, &r)) })
            };
            me.finished(i, result);
        }));
    }

    fn finished(&self, i: usize, result: Result<ExprValue>) {
        let mut state = lock(&self.state);
        state.done += 1;
        if state.failed {
            return;
        }
        match result {
            Err(e) => {
                state.failed = true;
                drop(state);
                self.close(Err(e));
                return;
            }
            Ok(r) if !self.ordered() => self.emit(r),
            Ok(r) => {
                state.pending.insert(i, r);
                loop {
                    let next = state.next;
                    let Some(r) = state.pending.remove(&next) else { break };
                    state.next += 1;
                    self.emit(r);
                }
            }
        }
        if state.input_done && state.done == state.scheduled {
            drop(state);
            self.close(Ok(()));
        }
    }
}

/// Maps `fn` over a stream into `sink`; `expected` is the type of each result.
fn run_map(op: &'static str, mut args: CallArgs, make_sink: impl FnOnce(&str) -> (ExprValue, Sink), streams: bool) -> Result<ExprValue> {
    let input = stream_arg(op, "stream", required(op, &mut args, 0)?)?;
    let f = functor_arg(op, required(op, &mut args, 1)?)?;
    let executor = executor_arg(op, take(&mut args, 2))?;
    let value_type = value_type_of(take(&mut args, 3).as_ref());
    let expected = if streams { format!("STREAM[{value_type}]") } else { value_type.clone() };
    let (value, sink) = make_sink(&value_type);
    let state = MapState { scheduled: 0, done: 0, input_done: false, failed: false, next: 0, pending: BTreeMap::new() };
    let mapper = Arc::new(Mapper { op, f, expected, executor, sink, state: Mutex::new(state) });
    let (m1, m2) = (mapper.clone(), mapper);
    consume(
        input,
        Executor::eager(),
        move |item| {
            let i = {
                let mut state = lock(&m1.state);
                if state.failed {
                    return Ok(false);
                }
                state.scheduled += 1;
                state.scheduled - 1
            };
            m1.schedule(i, item);
            Ok(!m1.out_abandoned())
        },
        move |end| {
            let mut state = lock(&m2.state);
            state.input_done = true;
            if state.failed {
                return;
            }
            match end {
                Err(e) => {
                    state.failed = true;
                    drop(state);
                    m2.close(Err(e));
                }
                Ok(()) if state.done == state.scheduled => {
                    drop(state);
                    m2.close(Ok(()));
                }
                Ok(()) => {}
            }
        },
    );
    Ok(value)
}

const MAP_DOC: &str = "Returns a stream of `fn` applied to each item of `stream`, in the input's order.

Each call runs as a task on the executor (several at once on a
multi-threaded one); results are written in the order of the input items.
Each result must be of the type of `value_type_as` (a DataSlice by
default), else the output ends with a ValueError. A Python function is
traced into a functor.

Args:
  stream: the input stream.
  fn: a functor of one positional argument.
  executor: the executor to run the calls on (the current one by default).
  value_type_as: a value of the type of the results.

Examples:
  >>> kd.streams.map(kd.streams.make(1, 2, 3), lambda x: x * 10).read_all(timeout=None)
  [DataItem(10, schema: INT32), DataItem(20, schema: INT32), DataItem(30, schema: INT32)]";

fn map(_: &str, args: CallArgs) -> Result<ExprValue> {
    run_map(
        MAP,
        args,
        |t| {
            let (v, out) = new_out(t);
            (v, Sink::Ordered(out))
        },
        false,
    )
}

const MAP_UNORDERED_DOC: &str = "Returns a stream of `fn` applied to each item of `stream`, in the order results come.

As `kd.streams.map`, but each result is written as soon as it is
computed, so the order of the output is not specified.

Args:
  stream: the input stream.
  fn: a functor of one positional argument.
  executor: the executor to run the calls on (the current one by default).
  value_type_as: a value of the type of the results.

Examples:
  >>> s = kd.streams.map_unordered(kd.streams.make(1, 2, 3), lambda x: x * 10)
  >>> sorted(x.to_py() for x in s.read_all(timeout=None))
  [10, 20, 30]";

fn map_unordered(_: &str, args: CallArgs) -> Result<ExprValue> {
    run_map(
        MAP_UNORDERED,
        args,
        |t| {
            let (v, out) = new_out(t);
            (v, Sink::Unordered(out))
        },
        false,
    )
}

const FLAT_MAP_CHAINED_DOC: &str = "Returns the streams `fn` returns for each item of `stream`, chained in input order.

`fn` must return a stream (of values of the type of `value_type_as`); the
calls run as tasks on the executor.

Args:
  stream: the input stream.
  fn: a functor of one positional argument returning a stream.
  executor: the executor to run the calls on (the current one by default).
  value_type_as: a value of the type of the output's items.

Examples:
  >>> s = kd.streams.flat_map_chained(kd.streams.make(1, 10), lambda x: kd.streams.make(x, x * 2))
  >>> s.read_all(timeout=None)
  [DataItem(1, schema: INT32), DataItem(2, schema: INT32), DataItem(10, schema: INT32), DataItem(20, schema: INT32)]";

fn flat_map_chained(_: &str, args: CallArgs) -> Result<ExprValue> {
    run_map(
        FLAT_MAP_CHAINED,
        args,
        |t| {
            let (v, out) = new_out(t);
            (v, Sink::Streams(Feed::Chain(Chain::new(out)), true))
        },
        true,
    )
}

const FLAT_MAP_INTERLEAVED_DOC: &str = "Returns the items of the streams `fn` returns for each item of `stream`, as they come.

The items of each returned stream keep their order; the streams are
interleaved in an unspecified order.

Args:
  stream: the input stream.
  fn: a functor of one positional argument returning a stream.
  executor: the executor to run the calls on (the current one by default).
  value_type_as: a value of the type of the output's items.

Examples:
  >>> s = kd.streams.flat_map_interleaved(kd.streams.make(1, 10), lambda x: kd.streams.make(x, x * 2))
  >>> sorted(x.to_py() for x in s.read_all(timeout=None))
  [1, 2, 10, 20]";

fn flat_map_interleaved(_: &str, args: CallArgs) -> Result<ExprValue> {
    run_map(
        FLAT_MAP_INTERLEAVED,
        args,
        |t| {
            let (v, out) = new_out(t);
            (v, Sink::Streams(Feed::Interleave(Interleave::new(out)), false))
        },
        true,
    )
}

// ---------------------------------------------------------------- reductions

const REDUCE_DOC: &str = "Returns a one-item stream of `fn` folded over the items of `stream`.

The result is `fn(...fn(fn(initial_value, s[0]), s[1])..., s[-1])`, each
call made as the next item comes, on the executor.

Args:
  fn: a functor of two positional arguments (the value so far, the item).
  stream: the input stream.
  initial_value: the starting value.
  executor: the executor to run the calls on (the current one by default).

Examples:
  >>> kd.streams.reduce(lambda acc, x: acc * 10 + x, kd.streams.make(1, 2, 3), 0).read_all(timeout=None)
  [DataItem(123, schema: INT32)]";

/// Folds the items of `input` with `step` on `executor`; the output gets
/// `finish(accumulator)`.
fn fold<S, F>(input: Arc<Stream>, executor: Executor, out: Out, init: ExprValue, step: S, finish: F)
where
    S: Fn(ExprValue, ExprValue) -> Result<ExprValue> + Send + 'static,
    F: FnOnce(ExprValue) -> Result<ExprValue> + Send + 'static,
{
    let acc = Arc::new(Mutex::new(Some(init)));
    let (acc2, out2) = (acc.clone(), out.clone());
    consume(
        input,
        executor,
        move |item| {
            let mut acc = lock(&acc);
            let value = acc.take().expect("an accumulator");
            *acc = Some(step(value, item)?);
            Ok(!out.abandoned())
        },
        move |end| {
            let result = end.and_then(|()| finish(lock(&acc2).take().expect("an accumulator")));
            match result {
                Ok(v) => {
                    out2.write(v);
                    out2.close(Ok(()));
                }
                Err(e) => out2.close(Err(e)),
            }
        },
    );
}

fn reduce(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.streams.reduce";
    let f = functor_arg(OP, required(op, &mut args, 0)?)?;
    let input = stream_arg(OP, "stream", required(op, &mut args, 1)?)?;
    let init = required(op, &mut args, 2)?;
    let executor = executor_arg(OP, take(&mut args, 3))?;
    let (value, out) = new_out(&value_type_name(&init));
    fold(input, executor, out, init, move |acc, item| call_fn(&f, vec![acc, item], Vec::new()), Ok);
    Ok(value)
}

const REDUCE_CONCAT_DOC: &str = "Returns a one-item stream of `initial_value` concatenated with the items of `stream`.

The result is `kd.concat(initial_value, *items, ndim=ndim)`, computed once
when the stream is closed (linear in the total size).

Args:
  stream: a stream of DataSlices.
  initial_value: the DataSlice to start from.
  ndim: how many trailing dimensions are concatenated (1 by default).
  executor: the executor to run on (the current one by default).

Examples:
  >>> s = kd.streams.make(kd.slice([2, 3]), kd.slice([4]))
  >>> kd.streams.reduce_concat(s, kd.slice([1])).read_all(timeout=None)
  [DataSlice([1, 2, 3, 4], schema: INT32, present: 4/4)]";

const REDUCE_STACK_DOC: &str = "Returns a one-item stream of `initial_value` stacked with the items of `stream`.

The result is `kd.stack(initial_value, *items, ndim=ndim)`, computed once
when the stream is closed (linear in the total size).

Args:
  stream: a stream of DataSlices.
  initial_value: the DataSlice stacked first.
  ndim: how many trailing dimensions are stacked (0 by default).
  executor: the executor to run on (the current one by default).

Examples:
  >>> kd.streams.reduce_stack(kd.streams.make(1, 2), kd.item(0)).read_all(timeout=None)
  [DataSlice([0, 1, 2], schema: INT32, present: 3/3)]";

fn reduce_with(op: &str, mut args: CallArgs, name: &'static str, backend: &'static str, default_ndim: i64) -> Result<ExprValue> {
    let input = stream_arg(name, "stream", required(op, &mut args, 0)?)?;
    let init = required(op, &mut args, 1)?.into_data(name)?;
    let ndim = take(&mut args, 2).map_or(Ok(default_ndim), |n| {
        int_of(&n).ok_or_else(|| Error::type_error(name, format!("`ndim` must be an integer item, got {}", n.kind_name())))
    })?;
    let executor = executor_arg(name, take(&mut args, 3))?;
    let (value, out) = new_out("DATA_SLICE");
    let parts = Arc::new(Mutex::new(vec![init]));
    let parts2 = parts.clone();
    fold(
        input,
        executor,
        out,
        ExprValue::Unspecified,
        move |acc, item| {
            lock(&parts).push(item.into_data(name)?);
            Ok(acc)
        },
        move |_| {
            let ndim = Value::Slice(DataSlice::item(Some(ScalarRef::Int64(ndim)), Schema::Int64)?);
            let parts = std::mem::take(&mut *lock(&parts2));
            registry::call_slice(backend, parts, vec![("ndim", ndim)]).map(ExprValue::slice).map_err(|e| e.raised_by(backend, name))
        },
    );
    Ok(value)
}

fn reduce_concat(op: &str, args: CallArgs) -> Result<ExprValue> {
    reduce_with(op, args, "kd.streams.reduce_concat", "kd.slices.concat", 1)
}

fn reduce_stack(op: &str, args: CallArgs) -> Result<ExprValue> {
    reduce_with(op, args, "kd.streams.reduce_stack", "kd.slices.stack", 0)
}

// ---------------------------------------------------------------- loops

/// The state of `foreach` / `while_`: the variables, and where yields go.
struct Loop {
    op: &'static str,
    vars: Vec<(String, ExprValue)>,
    result: &'static str,
    feed: Option<Feed>,
    out: Out,
}

/// The loop's result variable, its output stream and its state.
fn new_loop(
    op: &'static str,
    state: Vec<(String, ExprValue)>,
    returns: Option<ExprValue>,
    yields: Option<ExprValue>,
    interleaved: Option<ExprValue>,
) -> Result<(ExprValue, Loop)> {
    let given: Vec<(&'static str, ExprValue)> =
        [("returns", returns), ("yields", yields), ("yields_interleaved", interleaved)].into_iter().filter_map(|(n, v)| Some((n, v?))).collect();
    let Ok([(result, initial)]) = <[_; 1]>::try_from(given) else {
        return Err(Error::value(op, "exactly one of `returns`, `yields`, or `yields_interleaved` must be specified"));
    };
    let mut vars = state;
    if result == "returns" {
        let (value, out) = new_out(&value_type_name(&initial));
        vars.push(("returns".to_string(), initial));
        return Ok((value, Loop { op, vars, result, feed: None, out }));
    }
    let first = as_stream(&initial)
        .ok_or_else(|| Error::value(op, format!("expected `{result}` value to have type `STREAM[...]`, got `{}`", type_name(&initial))))?;
    let (value, out) = new_out(first.value_type());
    let feed = if result == "yields" { Feed::Chain(Chain::new(out.clone())) } else { Feed::Interleave(Interleave::new(out.clone())) };
    feed.push(first);
    Ok((value, Loop { op, vars, result, feed: Some(feed), out }))
}

impl Loop {
    /// Whether the condition (a MASK item, or a one-item stream of one) is present.
    fn go_on(&self, condition: &Compiled) -> Result<bool> {
        let mut cond = call_fn(condition, Vec::new(), self.vars.clone())?;
        if let Some(s) = as_stream(&cond) {
            cond = single_item(self.op, &s)?;
        }
        mask_item(&cond).ok_or_else(|| Error::value(self.op, format!("condition_fn must return a MASK DataItem, got {}", describe(&cond))))
    }

    fn apply(&mut self, fn_name: &str, updates: ExprValue) -> Result<()> {
        let (op, feed) = (self.op, self.feed.as_ref());
        super::control_flow::apply_loop_updates(op, fn_name, updates, &mut self.vars, self.result, |name, value| {
            let s = as_stream(value)
                .ok_or_else(|| Error::value(op, format!("expected `{name}` value to have type `STREAM[...]`, got `{}`", type_name(value))))?;
            feed.expect("a yielding loop").push(s);
            Ok(())
        })
    }

    fn finish(self, end: Result<()>) {
        match (self.feed, end) {
            (Some(feed), end) => feed.finish(end),
            (None, Err(e)) => self.out.close(Err(e)),
            (None, Ok(())) => {
                let value = self.vars.into_iter().find(|(n, _)| n == "returns").map(|(_, v)| v).expect("returns is a variable");
                self.out.write(value);
                self.out.close(Ok(()));
            }
        }
    }
}

const FOREACH_DOC: &str = "Runs `body_fn` on each item of a stream, as items come; returns a stream of the loop's result.

`body_fn` gets the item (positionally) and the loop variables
(`initial_state`, and `returns` if given) as keyword arguments, and returns
a `kd.namedtuple` of the variables it changes. `condition_fn` (if given) is
checked before each item and before `finalize_fn`; the loop stops when it
is missing. `finalize_fn` (if given) runs once after the last item. Exactly
one of `returns`, `yields`, `yields_interleaved` must be given: with
`returns` the result is a one-item stream of its final value; with `yields`
(a stream) the result chains it with the streams the body yields (with
`yields_interleaved`, interleaves them). The functors are not passed
`yields`.

Args:
  stream: the stream to loop over.
  body_fn: a functor of the item and the state returning a named tuple.
  finalize_fn: an optional functor of the state, run after the last item.
  condition_fn: an optional functor of the state returning a MASK item.
  executor: the executor to run the calls on (the current one by default).
  returns: the initial value of the result variable.
  yields: an initial stream, chained with the streams the body yields.
  yields_interleaved: as `yields`, interleaved.
  **initial_state: the other loop variables and their initial values.

Examples:
  >>> body = lambda x, returns: kd.namedtuple(returns=returns + x)
  >>> kd.streams.foreach(kd.streams.make(1, 2, 3), body, returns=0).read_all(timeout=None)
  [DataItem(6, schema: INT32)]
  >>> body = lambda x: kd.namedtuple(yields=kd.streams.make(x * 10))
  >>> kd.streams.foreach(kd.streams.make(1, 2), body, yields=kd.streams.make()).read_all(timeout=None)
  [DataItem(10, schema: INT32), DataItem(20, schema: INT32)]";

fn foreach(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let input = stream_arg(FOREACH, "stream", required(op, &mut args, 0)?)?;
    let body = functor_arg(FOREACH, required(op, &mut args, 1)?)?;
    let finalize = take(&mut args, 2).map(|f| functor_arg(FOREACH, f)).transpose()?;
    let condition = take(&mut args, 3).map(|f| functor_arg(FOREACH, f)).transpose()?;
    let executor = executor_arg(FOREACH, take(&mut args, 4))?;
    let (returns, yields, interleaved) = (take(&mut args, 5), take(&mut args, 6), take(&mut args, 7));
    let (value, state) = new_loop(FOREACH, args.var_kwargs, returns, yields, interleaved)?;
    let state = Arc::new(Mutex::new(Some(state)));
    let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (state2, stopped2, condition2) = (state.clone(), stopped.clone(), condition.clone());
    consume(
        input,
        executor,
        move |item| {
            let mut guard = lock(&state);
            let state = guard.as_mut().expect("a running loop");
            if let Some(c) = &condition {
                if !state.go_on(c)? {
                    stopped.store(true, std::sync::atomic::Ordering::Release);
                    return Ok(false);
                }
            }
            let updates = call_fn(&body, vec![item], state.vars.clone())?;
            state.apply("body_fn", updates)?;
            Ok(!state.out.abandoned())
        },
        move |end| {
            let Some(mut state) = lock(&state2).take() else { return };
            let end = end.and_then(|()| {
                if stopped2.load(std::sync::atomic::Ordering::Acquire) {
                    return Ok(());
                }
                if let Some(finalize) = &finalize {
                    if condition2.as_ref().map_or(Ok(true), |c| state.go_on(c))? {
                        let updates = call_fn(finalize, Vec::new(), state.vars.clone())?;
                        state.apply("finalize_fn", updates)?;
                    }
                }
                Ok(())
            });
            state.finish(end);
        },
    );
    Ok(value)
}

const WHILE_DOC: &str = "Runs `body_fn` while `condition_fn` is present, as a task; returns a stream of the loop's result.

The loop variables (`initial_state`, and `returns` if given) are passed to
both functors as keyword arguments; `condition_fn` returns a MASK item (or
a one-item stream of one), `body_fn` a `kd.namedtuple` of the variables it
changes. Exactly one of `returns`, `yields`, `yields_interleaved` must be
given, as in `kd.streams.foreach`.

Args:
  condition_fn: a functor of the state returning a MASK item.
  body_fn: a functor of the state returning a named tuple of updates.
  executor: the executor to run the loop on (the current one by default).
  returns: the initial value of the result variable.
  yields: an initial stream, chained with the streams the body yields.
  yields_interleaved: as `yields`, interleaved.
  **initial_state: the other loop variables and their initial values.

Examples:
  >>> cond = lambda n, returns: n > 0
  >>> body = lambda n, returns: kd.namedtuple(n=n - 1, returns=returns * n)
  >>> kd.streams.while_(cond, body, n=5, returns=1).read_all(timeout=None)
  [DataItem(120, schema: INT32)]";

fn while_(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let condition = functor_arg(WHILE, required(op, &mut args, 0)?)?;
    let body = functor_arg(WHILE, required(op, &mut args, 1)?)?;
    let executor = executor_arg(WHILE, take(&mut args, 2))?;
    let (returns, yields, interleaved) = (take(&mut args, 3), take(&mut args, 4), take(&mut args, 5));
    let (value, mut state) = new_loop(WHILE, args.var_kwargs, returns, yields, interleaved)?;
    executor.schedule(Box::new(move || {
        let end = (|| {
            while state.go_on(&condition)? {
                if stream::cancelled() || state.out.abandoned() {
                    return Err(stream::cancelled_error(WHILE));
                }
                let updates = call_fn(&body, Vec::new(), state.vars.clone())?;
                state.apply("body_fn", updates)?;
            }
            Ok(())
        })();
        state.finish(end);
    }));
    Ok(value)
}

// ---------------------------------------------------------------- calls and waits

const CALL_DOC: &str = "Calls a functor as a task on the executor; returns a stream of its result.

Arguments marked with `kd.streams.await_` (streams of exactly one item) are
waited for without blocking a thread, and their item is passed instead. If
the functor returns a stream, the output has that stream's items;
otherwise it holds the one value returned.

Args:
  fn: the functor to call.
  *args: positional arguments (`kd.streams.await_(stream)` to pass a
    stream's single item).
  executor: the executor to run the call on (the current one by default).
  return_type_as: accepted for compatibility with Koda; not used by plait.
  **kwargs: keyword arguments, as `*args`.

Examples:
  >>> f = kd.fn(lambda x, y: x + y)
  >>> kd.streams.call(f, kd.streams.await_(kd.streams.make(5)), y=1).read_all(timeout=None)
  [DataItem(6, schema: INT32)]";

/// A call waiting for its awaited arguments.
struct PendingCall {
    f: Arc<Compiled>,
    positional: Vec<ExprValue>,
    keywords: Vec<(String, ExprValue)>,
    waiting: usize,
    failed: bool,
}

fn call(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let f = functor_arg(CALL, required(op, &mut args, 0)?)?;
    let executor = executor_arg(CALL, take(&mut args, 2))?;
    // Where each awaited stream's item goes: positional k, or keyword k.
    let mut awaited: Vec<(bool, usize, Arc<Stream>)> = Vec::new();
    for (k, v) in args.var_args.iter().enumerate() {
        if let ExprValue::Foreign(x) = v {
            if let Some(a) = x.as_any().downcast_ref::<Awaited>() {
                awaited.push((true, k, a.0.clone()));
            }
        }
    }
    for (k, (_, v)) in args.var_kwargs.iter().enumerate() {
        if let ExprValue::Foreign(x) = v {
            if let Some(a) = x.as_any().downcast_ref::<Awaited>() {
                awaited.push((false, k, a.0.clone()));
            }
        }
    }
    let (value, out) = new_out("DATA_SLICE");
    let pending =
        Arc::new(Mutex::new(PendingCall { f, positional: args.var_args, keywords: args.var_kwargs, waiting: awaited.len(), failed: false }));
    let start = {
        let (out, executor) = (out.clone(), executor.clone());
        move |pending: &Arc<Mutex<PendingCall>>| {
            let (pending, out) = (pending.clone(), out.clone());
            executor.schedule(Box::new(move || {
                let (f, positional, keywords) = {
                    let mut p = lock(&pending);
                    (p.f.clone(), std::mem::take(&mut p.positional), std::mem::take(&mut p.keywords))
                };
                if stream::cancelled() || out.abandoned() {
                    return out.close(Err(stream::cancelled_error(CALL)));
                }
                match call_fn(&f, positional, keywords) {
                    Err(e) => out.close(Err(e)),
                    Ok(r) => match as_stream(&r) {
                        Some(s) => {
                            let chain = Chain::new(out);
                            chain.push(s);
                            chain.finish(Ok(()));
                        }
                        None => {
                            out.write(r);
                            out.close(Ok(()));
                        }
                    },
                }
            }));
        }
    };
    if awaited.is_empty() {
        start(&pending);
        return Ok(value);
    }
    let start = Arc::new(start);
    for (positional, k, s) in awaited {
        let items = Arc::new(Mutex::new(Vec::new()));
        let (items2, pending, out, start) = (items.clone(), pending.clone(), out.clone(), start.clone());
        consume(
            s,
            Executor::eager(),
            move |item| {
                lock(&items).push(item);
                Ok(true)
            },
            move |end| {
                let items = std::mem::take(&mut *lock(&items2));
                let end = end.and_then(|()| match <[ExprValue; 1]>::try_from(items) {
                    Ok([item]) => Ok(item),
                    Err(items) => Err(single_item_error(CALL, items.len())),
                });
                let mut p = lock(&pending);
                if p.failed {
                    return;
                }
                match end {
                    Err(e) => {
                        p.failed = true;
                        out.close(Err(e));
                    }
                    Ok(item) => {
                        if positional {
                            p.positional[k] = item;
                        } else {
                            p.keywords[k].1 = item;
                        }
                        p.waiting -= 1;
                        if p.waiting == 0 {
                            drop(p);
                            start(&pending);
                        }
                    }
                }
            },
        );
    }
    Ok(value)
}

const AWAIT_DOC: &str = "Marks a stream for `kd.streams.call`, which passes its single item instead.

Nothing waits here: the mark only tells `kd.streams.call` to wait for the
stream (which must have exactly one item). Any other value is returned as
it is.

Args:
  arg: a stream (or any value, returned unchanged).

Examples:
  >>> kd.streams.await_(kd.item(1))
  DataItem(1, schema: INT32)";

fn await_(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let arg = required(op, &mut args, 0)?;
    Ok(match as_stream(&arg) {
        Some(s) => ExprValue::Foreign(Arc::new(Awaited(s))),
        None => arg,
    })
}

fn single_item_error(op: &str, n: usize) -> Error {
    let got = if n == 0 { "an empty stream" } else { "a stream with multiple items" };
    Error::value(op, format!("expected a stream with a single item, got {got}"))
}

/// Waits (blocking this thread) for the single item of `s`.
fn single_item(op: &str, s: &Stream) -> Result<ExprValue> {
    let items = s.wait_all(None)?.unwrap_or_default();
    match <[ExprValue; 1]>::try_from(items) {
        Ok([item]) => Ok(item),
        Err(items) => Err(single_item_error(op, items.len())),
    }
}

const SYNC_WAIT_DOC: &str = "Waits for the single item of a stream and returns it.

Blocks the calling thread (from Python, without holding the GIL) until the
stream is closed; its error, if it was closed with one, is raised. A
stream without exactly one item raises a ValueError. It cannot be used in
a task running on an executor (where a blocked thread could be the one
the stream waits for): use `kd.streams.unsafe_blocking_wait` there.

Args:
  stream: a stream of one item.

Examples:
  >>> kd.streams.sync_wait(kd.streams.make(5))
  DataItem(5, schema: INT32)
  >>> kd.streams.sync_wait(kd.streams.make(1, 2))
  Traceback (most recent call last):
  ...
  ValueError: kd.streams.sync_wait: expected a stream with a single item, got a stream with multiple items";

fn sync_wait(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let s = stream_arg(SYNC_WAIT, "stream", required(op, &mut args, 0)?)?;
    if stream::in_task() {
        return Err(Error::value(
            SYNC_WAIT,
            "cannot wait inside a task running on an executor (it may block the thread the stream needs); \
             use kd.streams.unsafe_blocking_wait",
        ));
    }
    single_item(SYNC_WAIT, &s)
}

const UNSAFE_BLOCKING_WAIT_DOC: &str = "Waits for the single item of a stream and returns it, even inside a task.

As `kd.streams.sync_wait`, but allowed in a task running on an executor.
That is unsafe: if the stream is produced by tasks of the same executor and
all its threads are blocked waiting, nothing runs them and the wait never
ends.

Args:
  stream: a stream of one item.

Examples:
  >>> kd.streams.unsafe_blocking_wait(kd.streams.make(5))
  DataItem(5, schema: INT32)";

fn unsafe_blocking_wait(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.streams.unsafe_blocking_wait";
    let s = stream_arg(OP, "stream", required(op, &mut args, 0)?)?;
    single_item(OP, &s)
}

// ---------------------------------------------------------------- executors

const CURRENT_EXECUTOR_DOC: &str = "Returns the executor running the current task (the default executor outside tasks).

Examples:
  >>> kd.streams.current_executor()
  default_asio_executor";

fn current_executor(_: &str, _: CallArgs) -> Result<ExprValue> {
    Ok(ExprValue::Foreign(Arc::new(stream::current_executor())))
}

const GET_DEFAULT_EXECUTOR_DOC: &str = "Returns the default executor: tasks on plait's task threads, one per CPU at a time.

Examples:
  >>> kd.streams.get_default_executor()
  default_asio_executor";

fn get_default_executor(_: &str, _: CallArgs) -> Result<ExprValue> {
    Ok(ExprValue::Foreign(Arc::new(Executor::default_executor())))
}

const GET_EAGER_EXECUTOR_DOC: &str = "Returns the eager executor: it runs each task at once, on the thread scheduling it.

Examples:
  >>> kd.streams.get_eager_executor()
  eager_executor";

fn get_eager_executor(_: &str, _: CallArgs) -> Result<ExprValue> {
    Ok(ExprValue::Foreign(Arc::new(Executor::eager())))
}

const MAKE_EXECUTOR_DOC: &str = "Returns a new executor running at most `thread_limit` tasks at a time.

Tasks run on plait's task threads; 0 means one per CPU.

Args:
  thread_limit: a non-negative integer.

Examples:
  >>> kd.streams.make_executor(thread_limit=2)
  asio_executor
  >>> kd.streams.make_executor(thread_limit=-1)
  Traceback (most recent call last):
  ...
  ValueError: kd.streams.make_executor: `thread_limit` must be non-negative, but got: -1";

fn make_executor(_: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.streams.make_executor";
    let limit = match take(&mut args, 0) {
        None => 0,
        Some(v) => int_of(&v).ok_or_else(|| Error::type_error(OP, format!("`thread_limit` must be an integer item, got {}", describe(&v))))?,
    };
    if limit < 0 {
        return Err(Error::value(OP, format!("`thread_limit` must be non-negative, but got: {limit}")));
    }
    Ok(ExprValue::Foreign(Arc::new(Executor::with_limit(limit as usize))))
}

// ---------------------------------------------------------------- parallel calls

const CALL_FN_NORMALLY_DOC: &str = "Calls a functor; inside `kd.parallel`, without parallelising what it does.

Outside parallel execution it is `kd.call`. Inside it (`kd.parallel.call_multithreaded`),
the functor's own loops run sequentially on the thread calling it.

Args:
  fn: the functor to call.
  *args: positional arguments.
  return_type_as: accepted for compatibility with Koda; not used by plait.
  **kwargs: keyword arguments.

Examples:
  >>> kd.functor.call_fn_normally_when_parallel(kd.fn(lambda x: x + 1), 2)
  DataItem(3, schema: INT32)";

fn call_fn_normally_when_parallel(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.functor.call_fn_normally_when_parallel";
    let f = functor_arg(OP, required(op, &mut args, 0)?)?;
    stream::sequential(|| call_fn(&f, args.var_args, args.var_kwargs))
}

const CALL_FN_RETURNING_STREAM_DOC: &str = "Calls a functor that returns an iterable, or a stream inside `kd.parallel`.

A stream the functor returns is waited for and its items returned as an
iterable; any other result is returned as it is.

Args:
  fn: the functor to call.
  *args: positional arguments.
  return_type_as: accepted for compatibility with Koda; not used by plait.
  **kwargs: keyword arguments.

Examples:
  >>> f = kd.fn(lambda x: kd.iterables.make(x, x + 1))
  >>> list(kd.functor.call_fn_returning_stream_when_parallel(f, 1))
  [DataItem(1, schema: INT32), DataItem(2, schema: INT32)]";

fn call_fn_returning_stream_when_parallel(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.functor.call_fn_returning_stream_when_parallel";
    let f = functor_arg(OP, required(op, &mut args, 0)?)?;
    let result = call_fn(&f, args.var_args, args.var_kwargs)?;
    match as_stream(&result) {
        Some(s) => Ok(ExprValue::iterable_of(s.wait_all(None)?.unwrap_or_default(), true, s.value_type().to_string())),
        None => Ok(result),
    }
}

const PARALLEL_CALL_DOC: &str = "The body of functors made by `kd.parallel.transform`: calls `fn`
with `*args` and `**kwargs` (a tuple and a named tuple) as a task on
`executor`, its loops over items in parallel there, and returns a stream
of the result (of its items, for an iterable or a stream). Streams among
the arguments are read into iterables first. Dropping or cancelling the
result stops the work. `return_type` (a STRING item: `DATA_SLICE` for one
value, `STREAM[DATA_SLICE]` for an iterable) checks the result as Koda's
`call_multithreaded` / `yield_multithreaded` do.";

/// Koda's name of the parallel type of a result (`FUTURE[X]`, `STREAM[X]`).
fn parallel_type(v: &ExprValue) -> String {
    match v {
        ExprValue::Iterable(it) => format!("STREAM[{}]", it.value_type),
        other if as_stream(other).is_some() => value_type_name(other),
        other => format!("FUTURE[{}]", value_type_name(other)),
    }
}

fn parallel_call(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.parallel.call";
    let executor = executor_arg(OP, take(&mut args, 0))?;
    let f = functor_arg("kd.functor.call", required(op, &mut args, 1)?)?;
    let tuple = |v: ExprValue, what: &str| match v {
        ExprValue::Tuple(t) => Ok(t),
        other => Err(Error::type_error(OP, format!("`{what}` must be a tuple, got {}", other.kind_name()))),
    };
    let positional = tuple(required(op, &mut args, 2)?, "args")?;
    let keywords = tuple(required(op, &mut args, 3)?, "kwargs")?;
    let expected = take(&mut args, 4).map(|t| crate::operator::text_item(OP, "return_type", &t)).transpose()?;
    let expected = expected.map(|t| if t.starts_with("STREAM[") { t } else { format!("FUTURE[{t}]") });
    let positional: Vec<ExprValue> = positional.items.clone();
    let keywords: Vec<(String, ExprValue)> = keywords.names.iter().flatten().map(|n| n.to_string()).zip(keywords.items.iter().cloned()).collect();
    let value_type = match &expected {
        Some(t) => {
            t.strip_prefix("STREAM[").or_else(|| t.strip_prefix("FUTURE[")).and_then(|t| t.strip_suffix(']')).unwrap_or("DATA_SLICE").to_string()
        }
        None => "DATA_SLICE".to_string(),
    };
    let (stream, writer) = Stream::new(&value_type);
    let cancel: Cancel = stream.cancel_token();
    let value = stream.value();
    let task_executor = executor.clone();
    executor.schedule(Box::new(move || {
        let result = stream::in_parallel(task_executor, cancel, || -> Result<ExprValue> {
            let iterable = |v: ExprValue| -> Result<ExprValue> {
                match as_stream(&v) {
                    Some(s) => Ok(ExprValue::iterable_of(s.wait_all(None)?.unwrap_or_default(), true, s.value_type().to_string())),
                    None => Ok(v),
                }
            };
            let positional = positional.into_iter().map(iterable).collect::<Result<Vec<_>>>()?;
            let keywords = keywords.into_iter().map(|(k, v)| Ok((k, iterable(v)?))).collect::<Result<Vec<_>>>()?;
            let result = call_fn(&f, positional, keywords)?;
            match &expected {
                Some(expected) if parallel_type(&result) != *expected => Err(Error::value(
                    "kd.functor.call",
                    format!(
                        "The functor was called with `{expected}` as the output type, but the computation resulted in type `{}` instead. \
                         You can specify the expected output type via the `return_type_as=` parameter to the functor call.",
                        parallel_type(&result)
                    ),
                )),
                _ => Ok(result),
            }
        });
        match result {
            Err(e) => writer.close(Err(e)),
            Ok(ExprValue::Iterable(it)) => {
                for item in &it.items {
                    writer.write(item.clone());
                }
                writer.close(Ok(()));
            }
            Ok(r) => match as_stream(&r) {
                Some(s) => {
                    let chain = Chain::new(Arc::new(writer));
                    chain.push(s);
                    chain.finish(Ok(()));
                }
                None => {
                    writer.write(r);
                    writer.close(Ok(()));
                }
            },
        }
    }));
    Ok(value)
}
