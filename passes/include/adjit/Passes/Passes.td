#ifndef ADJIT_PASSES_TD
#define ADJIT_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerAdjitToLinalg : Pass<"adjit-lower-to-linalg", "ModuleOp"> {
  let summary = "Lower adjit ops to linalg, tensor, arith, math and scf";
  let description = [{
    Elementwise ops become `linalg.generic` ops with identity maps so that
    elementwise fusion can merge chains of them; broadcasts and transposes
    become generics with projected or permuted input maps for the same
    reason. f16 and bf16 arithmetic is computed in f32 and rounded once,
    and their reductions and contractions accumulate in f32.

    The linear algebra ops become loops over one matrix at a time; with
    `matrix-vector-bits` (a CPU's vector width), a batch of matrices of at
    most 8 rows and columns runs a matrix per vector lane: in groups of a
    vector's worth of matrices, [groups, rows, cols, lanes], each group
    factored in registers, chunks of groups in parallel (`scf.forall`)
    where there is enough work. With `parallel-rows` (a CPU's threads),
    argsort's rows and search_sorted's values run in parallel chunks too.
  }];
  let options = [
    Option<"matrixVectorBits", "matrix-vector-bits", "int64_t", /*default=*/"0",
           "Width in bits of the vectors that carry a batch of small matrices "
           "through cholesky, triangular_solve and solve, a matrix per lane "
           "(0: one matrix at a time, as on a GPU)">,
    Option<"parallelRows", "parallel-rows", "bool", /*default=*/"false",
           "Sort rows and searched values in parallel chunks (scf.forall) where "
           "there is enough work (false: one loop, as on a GPU)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect"
  ];
}

def Differentiate : Pass<"adjit-differentiate", "ModuleOp"> {
  let summary = "Expand adjit.grad, adjit.vjp and adjit.jvp into functions";
  let description = [{
    Each request becomes a call of a new private function in the `adjit`
    dialect: `<f>_vjp_<wrt>` (reverse mode: the primal body followed by the
    adjoint sweep) or `<f>_jvp_<wrt>` (forward mode, tangents interleaved
    with the primal ops). Activity analysis gives adjoints only to float
    values that depend on a differentiated argument and reach a result.
    Rules come from DifferentiableOpInterface; an active op without one is
    an error naming the op. Calls are differentiated through derived
    functions of the callee; derived functions are cached per callee.
    Requests inside functions that are themselves differentiated are
    expanded first, so derivatives of derivatives work.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def Rematerialize : Pass<"adjit-rematerialize", "ModuleOp"> {
  let summary = "Recompute cheap residuals in the backward pass instead of keeping them";
  let description = [{
    In each reverse-mode function (`adjit.cotangents_from`), chooses the
    forward values to keep for the backward pass by a minimum cut, as
    PyTorch's AOTAutograd partitioner does: keeping a value costs its
    bytes; a value made by an elementwise op (or a broadcast, reshape,
    transpose) can instead be recomputed from its operands; arguments and
    constants are free. The backward pass then recomputes the others from
    the kept values, behind an `adjit.optimization_barrier` so that CSE and
    fusion keep the recomputation apart. Nothing changes unless fewer bytes
    are kept.

    Only recomputation that adds no memory traffic is chosen: a residual
    that the backward pass reads in a contraction, a control-flow op or any
    op that does not fuse with elementwise producers is kept, and a
    recomputation reaches at most 8 ops back. `CompileOptions::rematerialize`
    (and `JitOptions::rematerialize`, `adjit compile --no-remat`) turns the
    pass off; the results are the same either way.

    ```mlir
    // gelu-like: the backward pass needs t = tanh(a) and a.
    %t = adjit.tanh %a : tensor<4xf32>        // forward
    ...
    %d = adjit.mul %ct, %t : tensor<4xf32>    // backward
    // becomes, in the backward pass, with only %a kept:
    %k = adjit.optimization_barrier %a : tensor<4xf32>
    %t2 = adjit.tanh %k : tensor<4xf32>
    %d = adjit.mul %ct, %t2 : tensor<4xf32>
    ```
  }];
}

def ExpandComposites : Pass<"adjit-expand-composites", "ModuleOp"> {
  let summary = "Replace composite ops (adjit.gelu) by their formulas";
  let description = [{
    Runs in the `optimized` stage, after differentiation: a composite op
    (`CompositeOpInterface`) has served its derivative rule and becomes the
    adjit ops of its formula. The rule built the same subexpressions from
    the same operand, so the stage's CSE then computes them once for the
    value and the derivative:

    ```mlir
    %y = adjit.gelu %x approximate : tensor<4xf32>
    // becomes
    %h = adjit.mul %x, %half : tensor<4xf32>
    %x2 = adjit.mul %x, %x : tensor<4xf32>
    ...
    %t = adjit.tanh %u : tensor<4xf32>
    %ht = adjit.mul %h, %t : tensor<4xf32>
    %y = adjit.add %h, %ht : tensor<4xf32>
    ```
  }];
}

def SplitPaddedConsumers : Pass<"adjit-split-padded-consumers", "ModuleOp"> {
  let summary = "Run elementwise consumers of padded tensors box by box, reading the pads' sources in place";
  let description = [{
    A `tensor.pad` (static amounts, no interior padding) read by an
    all-parallel `linalg.generic` through an identity map is never
    materialized for it: the generic is split, along every dimension, at
    the edges of each pad it reads, into one generic per box of its
    iteration space. In each box a padded operand is either its source, read
    in place through a slice, or the padding value, which the piece's body
    uses instead of the operand. The pieces write their boxes of the
    original outputs (destination-passing `tensor.insert_slice`s). This is
    XLA's fusion of pad into its consumers: the gradient of a stencil (the
    adjoint of `x[1:] - x[:-1]` is two pads summed) otherwise writes each
    pad in full and reads it back.

    A slice of a cheap elementwise producer in the consumer's block (no
    transcendental, a small body: `adjit-fuse-elementwise`'s rule) is that
    producer computed again on slices of its operands, so that the pieces
    fuse with it: the stencil's gradient then reads `x` at shifted rows
    instead of reading the differences from a full-size buffer. Other
    values are sliced. A consumer whose result is a loop's next carry is
    not split: as one generic it may overwrite the old carry in place
    (`adjit-write-into-dead-inputs`), where pieces would write a fresh
    tensor that the loop copies every step.

    At most 64 boxes: more pads would split a generic into pieces too small
    to pay for their loops. The pads left (read otherwise, or too many) are
    lowered here as copies of their source into an empty tensor, with only
    the slabs around it filled.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def FuseElementwise : Pass<"adjit-fuse-elementwise", "ModuleOp"> {
  let summary = "Fuse elementwise producers into their consumers, without recomputation";
  let description = [{
    Linalg producer-consumer fusion of generics, restricted to producers
    with one use whose result the consumer reads through a permutation:
    each produced element is then computed exactly once in the fused loop
    nest. (Upstream's elementwise fusion would also fuse a producer into a
    contraction that reads each element many times, recomputing it per
    read: a tanh before a matmul would run once per output column.)
    Producers that only replicate data (splat constants, broadcasts,
    transposes) or are small elementwise bodies fuse into every consumer
    even with several uses: recomputing them costs a few instructions per
    element, materializing them a full-size buffer written and read again.
    Small means that the extra copies together repeat at most 32 ops and
    loads per element: a body's ops and its inputs' loads, times its uses
    less one. A 5-point stencil's value (five loads, six ops) read by four
    shifted pads of its gradient is computed once and read back instead:
    the Laplacian's gradient over 1024 x 1024 runs 1.66x faster so.
    Such a body must read arguments or buffers only, except for a value
    per row of rows shorter than a register (log_softmax's `x - max` over
    10 classes): without a full-size result, the reductions over those
    rows run across rows in `adjit-vectorize`. Over longer rows a row's
    `x - mean` stays one temporary in the cache, read again more cheaply
    than recomputed.

    With `recompute`, which the cuda target sets in a second run after
    `adjit-tile-and-fuse-rows`, any elementwise producer read through a
    permutation fuses into every consumer, transcendentals and chains of
    shared values included: on a GPU, arithmetic is cheap next to a round
    trip through device memory and a kernel launch. Fused bodies stay
    bounded (256 ops), which bounds the recomputation. Inside a row group
    (an `scf.forall`) the first policy still holds: a row's shared values
    stay in the cache, and recomputing them would repeat a transcendental
    in every pass over the row. There a small body that reads only
    arguments and per-row scalars (one-element tensors, such as
    LayerNorm's `x - mean`) is recomputed as well: it saves the thread
    block a row's temporary.
  }];
  let options = [
    Option<"recompute", "recompute", "bool", /*default=*/"false",
           "Fuse every elementwise producer into all its consumers (GPU policy)">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Width of the target's vector registers in bits, which sets what "
           "a short row is (0: the host's widest: 512 with AVX-512, 256 with "
           "AVX, else 128)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def MergeGenerics : Pass<"adjit-merge-generics", "ModuleOp"> {
  let summary = "Merge consecutive generics over the same loops into one with both outputs";
  let description = [{
    Two consecutive `linalg.generic`s with the same loops become one when
    the second reads the first's results only at the point where they are
    computed (through the map they are written with) and nothing between
    them reads those results. The merged generic has the outputs of both;
    a loop reduces in it if it reduces in either. Outputs that only the
    merged generic read are then dropped. Inside a block of rows this makes
    a few loops per row out of a chain of generics: shared values are
    computed once and passed in registers instead of being written to a
    buffer (or recomputed in each consumer).

    With `uniform-iterators` (the cuda target), only pairs that keep the
    GPU mapping's parallelism merge: two generics with the same iterators
    (W3's two column sums of the same inputs become one kernel that reads
    them once), or an elementwise generic and a reduction over all loops
    (W1's sum and its gradient over the same `x`). Reductions must be over
    32-bit values, what a block-wide `gpu.all_reduce` combines. A reduction
    merged with an elementwise sibling over other dimensions would lose
    the mapping's parallelism (or its coalesced column form).
  }];
  let options = [
    Option<"uniformIterators", "uniform-iterators", "bool", /*default=*/"false",
           "Merge only generics with the same iterators, or an elementwise "
           "one and a full reduction (for the GPU mapping)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def WriteIntoDeadInputs : Pass<"adjit-write-into-dead-inputs", "ModuleOp"> {
  let summary = "Let elementwise generics write into an input that dies there";
  let description = [{
    An elementwise `linalg.generic` that writes a fresh tensor
    (`tensor.empty`) writes into one of its inputs instead when that input
    has the same type and indexing map and nothing reads it afterwards (in
    its block, only earlier reads: a generic's input, an insert_slice's
    source, such as the stack a derivative keeps a carry in): a loop's
    carry (an `scf.for` iteration argument, or an argument of an
    `scf.while` body) or a temporary another generic made. Bufferization
    then updates that buffer in place instead of allocating one per result,
    and a loop yields its carry's own buffer instead of a fresh one it must
    copy (a while loop whose body yields fresh buffers copies every carry
    once per iteration in its condition region; the in-place reuse of XLA's
    buffer assignment). Constants and slices of other tensors are never
    written, nor are function arguments, except a donated one (`adjit.aliasing_output
    = R`) by the op that computes result R: a generic, or a row loop
    (`adjit-tile-and-fuse-rows`) that then carries the argument and reads
    each of its rows from the carry just before writing it.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FlattenShortRows : Pass<"adjit-flatten-short-rows", "ModuleOp"> {
  let summary = "Run elementwise generics over short rows as one long row";
  let description = [{
    An all-parallel `linalg.generic` that reads and writes every operand
    through the identity (or reads 0-d values), whose innermost loop is
    shorter than a vector step of `adjit-vectorize` (two registers: 32 f32
    with AVX-512), runs over its operands collapsed to one dimension
    instead (`tensor.collapse_shape`, a view of the same buffer): an
    elementwise op on points of 3 coordinates would otherwise run one
    partial vector per row, and a math function on such a vector (not a
    whole register) takes the generic polynomial instead of AVX-512's.
    Operands that are slices must be whole rows of their source, so that
    the collapsed view stays contiguous (a slice of a row's first columns
    would be copied).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Width of the target's vector registers in bits (0: the host's "
           "widest: 512 with AVX-512, 256 with AVX, else 128)">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def Vectorize : Pass<"adjit-vectorize", "ModuleOp"> {
  let summary = "Vector code for the innermost loop of generics, at the target's vector width";
  let description = [{
    A `linalg.generic` with static shapes becomes loops whose innermost
    one steps through vectors of two registers of the target's width (32
    f32 lanes with AVX-512, 16 with AVX2: two independent halves for the
    CPU to overlap), with `vector.transfer_read`/`write` of its
    contiguous operands, the body's `arith`/`math` ops on vectors, and the
    values that do not depend on the innermost index (a row's mean, a
    broadcast operand) computed once per row, as scalars. A reduction over
    the innermost dimension (a row sum, a maximum) accumulates lane-wise in
    a vector and is reduced across lanes once per row; a float sum must
    allow reassociation (`fastmath<reassoc>`, as adjit's reductions do).
    Where a step waits on long dependency chains (a reduction, or a math
    function such as exp or tanh), the row holds at least two steps of four
    registers and four copies of the body's values live at once fit in
    the vector registers
    (at most 8 live with AVX-512's 32 registers, 4 with AVX2's 16; a
    reduction's accumulator counts throughout), it steps through four
    registers instead: four independent chains, so that neither a row
    sum's adds nor an exp's or tanh's polynomial bound the loop by their
    latency.
    A remainder shorter than a vector runs as one shorter vector.
    Bools are vectors of i1 that count as a byte per lane (their size in
    memory, which `adjit-convert-bool-vector-memory-to-llvm` keeps), so a
    mask that the backward pass reads (a comparison's result) is read and
    written in vectors like any other operand.

    An input contiguous along another loop than the innermost (a transpose:
    `(d0, d1) -> (d1, d0)`) is read in square tiles over that loop and the
    innermost one, of a register's lanes up to 16 a side (16 f32 with
    AVX-512, 8 with AVX2): the tile's vectors along the other loop are
    transposed in registers (log2 of the side stages of two-source
    shuffles), then each row of the tile runs as one vector step. What
    whole tiles leave runs one element at a time. (adjit-tile-and-fuse-rows
    gives such a generic blocks of whole tiles of rows.) A 1024x1024 f32
    transpose runs at 20 GB/s instead of 1.2.

    Loop indices (`linalg.index`) are scalars once per row for an outer
    loop and vectors of consecutive indices for the innermost one. An
    argmax-like pair of outputs (a best value and its index, both replaced
    by a select on one predicate of the candidate and the best value) runs
    lane by lane from the output's values; halving trees of shuffles then
    keep the better lane, or on a tie (neither better) the smaller index,
    which gives the first index of the best as the body would; the
    elements past the whole vectors follow one at a time. An f32 argmax
    along rows of 1024 runs at 29 GB/s instead of 1.2.

    Rows no longer than a register reduced along the innermost loop (a
    sum, max or argmax over 10 classes) run across rows instead: the loop
    before the innermost becomes the vector's, the rows are read as
    transposed inputs (in tiles whose reads past the row's end are padding
    and whose padding rows do not run), and each lane reduces its own row
    in the body's order. An argmax over rows of 16 runs at 26 GB/s instead
    of 1.3. With AVX-512, rows of at most 4 elements read through the
    identity from a contiguous operand are read instead as the tile's
    rows * 16 consecutive elements (3 whole vectors for 16 points of 3),
    and each of the tile's columns is gathered from them by two-source
    shuffles (2 per column of points of 3, where the square tile took 16
    loads and 64 shuffles): squared lengths of points of 3 in cache take
    0.37 of the time.

    Elementwise work over rows shorter than a register that reads values
    once per row (log_softmax's `x - max - log(sum)`, points scaled to unit
    length) runs over the rows as one long row, in whole registers: groups
    of `lanes / gcd(lanes, row)` rows fill `row / gcd(lanes, row)`
    registers exactly (8 rows of 10 f32 fill 5 with AVX-512), and each
    register's per-row values are the group's, read as one vector and
    spread over its lanes by a shuffle (a vpermps). Operands read through
    the identity must be contiguous (bufferization collapses them into
    views), the others read once per row or 0-d, and the rows whole
    groups; otherwise the generic runs row by row. Unit vectors of 2^18
    points of 3 take 0.67 of the time.

    f16 and bf16 values that are only moved, widened or narrowed (an input
    the body yields as it is or extends to f32, as half-precision math
    computes; f32 results narrowed back, after each op, for an output or
    the next op) are vectors too: a
    1024x1024 bf16 transpose runs at 12.8 GB/s instead of 1.4, a bf16
    argmax along rows at 20.6 instead of 0.54.

    An element of a tensor from above whose last index varies along the
    innermost loop (`take` along the last axis) is a `vector.gather` at the
    lanes' offsets: 7.9 -> 11.8 GB/s for 1024 rows of 256 picks. Where that
    index is the innermost loop's own (`take` along the first axis picks
    whole rows), the lanes' elements are consecutive: one vector read at
    the picked row instead (1024 picked rows of 1024 f32 on Zen 4, whose
    gathers fetch an element at a time: 20 -> 87 GB/s).

    Left as they are (and to LLVM's loop vectorizer): generics with dynamic
    shapes, gathers along another dimension than the last, read inputs
    transposed along two different loops, or write an output transposed
    along the innermost dimension, contractions marked for the
    GEMM kernels, element types other than f32, f64 and integers (but for
    moved, widened or narrowed f16 and bf16), and math
    functions that would not lower to vector code: every f64
    transcendental, and f32 pow, tan and the inverse and hyperbolic
    trigonometric functions, which go to libm one element at a time,
    unless `vector-math-library` lets adjit-math-to-libm call glibc's
    vector variants of them (an f64 tanh 8.2x faster on Zen 4,
    `adjit-op-bench --filter f64`).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Width of the target's vector registers in bits (0: the host's "
           "widest: 512 with AVX-512, 256 with AVX, else 128)">,
    Option<"vectorMathLibrary", "vector-math-library", "bool", /*default=*/"false",
           "Vector code for the math functions of glibc's vector math library "
           "(f64 transcendentals; f32 pow, tan, inverse and hyperbolic "
           "trigonometry), which adjit-math-to-libm then "
           "calls; without it, generics with them stay scalar loops">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def SelectKernels : Pass<"adjit-select-kernels", "ModuleOp"> {
  let summary = "Mark the contractions that the runtime's GEMM kernels serve";
  let description = [{
    A `linalg.generic` computing `C[b, i, j] += A[b, i, p] * B[b, p, j]` in
    f32 or f64 (one row, column and reduction loop, any number of batch
    loops, operands read in any dimension order) gets
    `library_call = "adjit_gemm_f32"` (or `_f64`). These run as packed,
    register-blocked kernels chosen for the host's vector width
    (runtime/lib/gemm), split over threads; other contractions stay loop
    nests. The mark is visible in the `fused` stage.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TileAndFuseRows : Pass<"adjit-tile-and-fuse-rows", "ModuleOp"> {
  let summary = "Run groups of generics block of rows by block of rows, in parallel chunks";
  let description = [{
    Generics that share a leading loop of the same extent (the rows: a
    batch, the rows of a LayerNorm, the elements of a vector) and read each
    other's results row by row form a group. The group runs as one loop
    over blocks of rows: every intermediate exists only for one block,
    sized so that a block's working set stays in the L1 cache, and only
    the values used after the group are written out in full. A reduction
    over the rows (a bias gradient, a loss) accumulates across the blocks.

    When the group has enough work, its rows are split into a fixed number
    of chunks that run in parallel (`scf.forall`, OpenMP threads later).
    The chunk count depends only on the shapes, never on the thread count,
    so results are the same for every thread count; a reduction over the
    rows keeps one partial result per chunk and combines them in chunk
    order after the loop. Contractions served by the GEMM kernels and
    generics that read their loop indices stay whole.

    With `gpu`, the blocks are GPU thread blocks instead (adjit-map-to-gpu
    gives each chunk one, whose threads share each row): a block of rows is
    one row, the chunks as many as divide the rows up to `max-chunks`, and
    only groups worth a block per chunk form: at least two members, one of
    them a reduction over at least a warp's worth (32) of elements of each
    row (LayerNorm's statistics, softmax's sums), and no member with more
    than 16384 iterations per row (longer rows are better split over
    several blocks, a kernel per generic). The row's reductions are
    then block-wide all-reduces, and its elementwise work reads the row from
    the multiprocessor's cache instead of from device memory. An output
    that starts as a fill (a row sum's zeros) is filled row by row in the
    block: a fill of all rows would be a launch of its own.
  }];
  let options = [
    Option<"cacheBytes", "cache-bytes", "int64_t", /*default=*/"0",
           "Working-set budget of one block of rows in bytes (0: half the "
           "host's L1 data cache)">,
    Option<"minChunkWork", "min-chunk-work", "int64_t", /*default=*/"131072",
           "Fewest loop iterations of a chunk worth running on its own thread">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"16",
           "Most chunks the rows of a group are split into">,
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "Plan for GPU thread blocks: one row per block, the chunks are "
           "the blocks">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ContractionsToCalls : Pass<"adjit-contractions-to-calls", "ModuleOp"> {
  let summary = "Replace marked buffer contractions by calls of the runtime's GEMM";
  let description = [{
    Each `linalg.generic` on memrefs marked by `adjit-select-kernels` becomes
    a call of `adjit_gemm_f32`/`adjit_gemm_f64` with the loop extents and,
    per operand, its address and its strides along the batch, row and column
    loops (so transposed operands are read in place). The kernel takes one
    batch loop, the longest; further batch loops (attention's batch and
    heads, whose strides need not merge) become `scf.for` loops around the
    call, which offset each operand's address. A zero `linalg.fill` of the
    output right before it is folded into the call (each call overwrites its
    own part of the output).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def UnitStrideGathers : Pass<"adjit-unit-stride-gathers", "func::FuncOp"> {
  let summary = "Gather from strided memory through unit-stride views";
  let description = [{
    `adjit-vectorize` reads a `tensor.extract` at per-lane indices (a take)
    as a `vector.gather`, whose base becomes a strided view once a slice with
    strides is bufferized. `convert-vector-to-llvm` lowers only gathers whose
    base has a unit innermost stride. This pass rewrites the others to gather
    from a one-dimensional unit-stride view of the same buffer, starting at
    the base element, at the indices times the innermost stride:

    ```mlir
    %v = vector.gather %s[%c0] [%i], %mask, %pass
        : memref<2xf32, strided<[2]>>, vector<3xindex>, vector<3xi1>, vector<3xf32> into vector<3xf32>
    ```
    becomes a `memref.extract_strided_metadata` of `%s`, a
    `memref.reinterpret_cast` to `memref<?xf32, strided<[1], offset: ?>>`
    and a gather from it at `%i * 2`.

    One-dimensional vector reads (in bounds, unmasked, not of i1) along a
    dimension whose stride is not known to be 1 (a strided slice's
    elements, a column of a row-major matrix) become a gather from such a
    view at 0, s, 2s, ...: `convert-vector-to-scf` would make them a loop
    of scalar loads, each moving one lane through the stack. Runs before
    it. Strided writes keep that loop (scatters were no faster).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def ConvertBoolVectorMemoryToLLVM
    : Pass<"adjit-convert-bool-vector-memory-to-llvm", "ModuleOp"> {
  let summary = "Load and store vectors of i1 a byte per element";
  let description = [{
    adjit's tensors of i1 take a byte per element, as a scalar i1 does in
    LLVM's memory, but LLVM stores a vector `<N x i1>` packed into bits, so
    upstream's lowering of `vector.load` and `vector.store` would read and
    write the wrong bytes. This pass lowers the 1-D in-bounds loads and
    stores of memrefs of i1 that `adjit-vectorize` makes: a load reads
    `<N x i8>` and truncates it (a stored bool is 0 or 1), a store extends
    to `<N x i8>` first. Runs before `convert-vector-to-llvm`; in-bounds 1-D
    transfers are first lowered to loads and stores as that pass would. Any
    other vector access of memory of i1 (masked, gathered, out of bounds, of
    more than one dimension) is an error rather than bit-packed.

    ```mlir
    %m = vector.load %bools[%i] : memref<64xi1>, vector<32xi1>
    ```
    becomes
    ```mlir
    %bytes = llvm.load %address {alignment = 1 : i64} : !llvm.ptr -> vector<32xi8>
    %m = llvm.trunc %bytes : vector<32xi8> to vector<32xi1>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertArenaToLLVM : Pass<"adjit-convert-arena-to-llvm", "ModuleOp"> {
  let summary = "Lower arena buffers to calls that LLVM sees as allocations";
  let description = [{
    `adjit.arena_buffer %arena[offset]` becomes a call of
    `adjit_arena_buffer(arena, offset)`, declared to return a `noalias`
    pointer and to touch only memory it owns (as malloc is): LLVM then keeps
    the buffers of one arena apart as it would separate allocations.
    `adjit.arena_release %buffer` becomes a call of
    `adjit_arena_release(buffer)`, declared to read and write its argument's
    memory and the same owned memory: no access to the released buffer
    moves after it, and the next buffer at the same offset is only made
    after it. Both functions do no other work (runtime/include/adjit/
    runtime/ArenaBuffers.h): once LLVM has optimized the module, code
    generation replaces each buffer's call by `arena + offset` and drops the
    releases (compiler/lib/ArenaAddresses.cpp).
    Runs before `finalize-memref-to-llvm`; the casts it leaves between
    memrefs and descriptors are reconciled with the others.

    ```mlir
    %a = adjit.arena_buffer %arena[4096] : memref<8192xi8> to memref<32x32xf32>
    ```
    becomes
    ```mlir
    %p = llvm.call @adjit_arena_buffer(%base, %c4096) : (!llvm.ptr, i64) -> !llvm.ptr
    // ... a memref descriptor of %p with static sizes and strides ...
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def PipelineLoops : Pass<"adjit-pipeline-loops", "func::FuncOp"> {
  let summary = "Software-pipeline vector loops whose dependence chains outlast the core's scheduler";
  let description = [{
    A vector loop whose body is one long dependence chain (W3's GELU pass:
    normalization, a cubic, tanh's two polynomials and division, the
    backward; about 40 FMA latencies) leaves the FMA units idle on a core
    whose scheduler holds fewer waiting operations than two or three
    iterations have in flight: in program order, each iteration's chain
    fills the window before the next one's independent work is reached.
    Measured on a Zen 5 core, independent FMA chains 32 deep run at 55% of
    the FMA peak when each chain comes whole, at 100% when eight of them
    are interleaved.

    This pass cuts such a loop's body into stages of equal latency (2 or 3,
    `chain-per-stage` FMA latencies each) and pipelines it with upstream's
    `scf::pipelineForLoop`: the kernel runs stage s of iteration i + S - 1 -
    s for every s, one operation of each stage in turn, with a prologue
    and an epilogue for the first and last iterations. Loads, index
    arithmetic and comparisons move to the first stage that uses them (a
    compare and its select in one stage make one `vmaxps` of a clamp; a
    mask carried across stages takes mask moves and a blend).

    A load that several stages use is repeated in each (when the loop
    writes nothing it could overlap): carried, three iterations' values
    spill.

    A multiply whose only use is an add or subtract in a later stage is
    fused with it into `math.fma` there. Unpipelined, LLVM contracts such
    a pair (fp-contract=fast); stages put the two in different
    iterations of the kernel, where the product would be rounded on its
    own, and formulas written for the fused form would lose accuracy (the
    exact gelu's P + x (-x / 2) failed its accuracy test): pipelining
    changes no result.

    Latencies count vector operations as one FMA's, divisions and square
    roots as three, scalar index arithmetic as none. The pass runs for
    targets with 256-bit vectors or wider and fused multiply-add (AVX2 and
    FMA, AVX-512). The stages are at most what the vector registers
    hold: three with AVX-512's 32, two with AVX2's 16 (on a Zen 1 core,
    W3's value and gradient ran in 0.84 of the unpipelined time with two
    stages, 0.91 with three, whose values spill). Loops stay as they
    are when their chain is shorter than `min-chain` (shorter chains, W2's
    and W4's loops of 18 to 26 latencies, ran up to 8% slower pipelined), their
    steps already span four vector registers (adjit-vectorize's answer to
    the same problem where the live values fit: W1's loop, pipelined as
    well, spilled and ran 1.6x slower), their trip count is not a constant
    of at least twice the stages, they hold another loop or an operation
    whose memory effects are unknown (a call), or reordering could change
    what they read or write: each pair of accesses in
    different stages, one of them a write, must be to separate buffers
    (allocations, arena buffers, or a public function's arguments when
    none is donated) or to the same slice of one buffer per iteration (the
    induction variable as the last index, covering at most one step), the
    first of the two in the earlier stage.

    ```mlir
    scf.for %i = %c0 to %c1024 step %c16 {
      %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>
      ... a chain of 20 vector operations ...
      vector.store %y, %out[%i] : memref<1024xf32>, vector<16xf32>
    }
    // becomes a prologue, the kernel, an epilogue:
    // stage 0 of iteration 0; stages 0 and 1 of iterations 1 and 0;
    // scf.for: stage 0 of i + 2, stage 1 of i + 1, stage 2 of i, interleaved
    // stages 1 and 2 of the last two iterations; stage 2 of the last
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Width of the target's vector registers in bits (0: the host's "
           "widest)">,
    Option<"maxStages", "max-stages", "int64_t", /*default=*/"0",
           "Most stages a loop is cut into (0: what the vector registers "
           "hold, 3 with 512-bit vectors, 2 with 256-bit ones)">,
    Option<"minChain", "min-chain", "int64_t", /*default=*/"30",
           "Shortest chain, in FMA latencies, that is pipelined">,
    Option<"chainPerStage", "chain-per-stage", "int64_t", /*default=*/"12",
           "FMA latencies of chain per stage">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

def PromoteSingleIterationLoops : Pass<"adjit-promote-single-iteration-loops", "func::FuncOp"> {
  let summary = "Replace affine loops of one iteration by their bodies";
  let description = [{
    A generic over one row of a block (adjit-tile-and-fuse-rows) lowers to
    a loop of one iteration. Left as loops, a long program's row loop holds
    thousands of them, and LLVM's CFG simplification merges their blocks one
    by one, moving the accumulated instructions each time (quadratic: 4.4 s
    of a 64,000-op chain under grad). Their bodies take their place, with
    the induction variable replaced by the lower bound.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect"];
}

def PromoteAccumulators : Pass<"adjit-promote-accumulators", "func::FuncOp"> {
  let summary = "Carry reduction accumulators of temporaries in loops instead of memory";
  let description = [{
    An `affine.for` whose body loads and later stores the same element of
    a temporary buffer (a view of an allocation of the function), at
    indices fixed in the loop, with no other access to that allocation in
    the loop, carries the value instead: loaded once before the loop,
    stored once after. A reduction lowered from linalg keeps its
    accumulator in memory; carried, LLVM vectorizes it even inside a
    parallel region, where it cannot tell the buffers apart. Buffers that
    are function arguments are left alone: another argument could alias
    them.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect"];
}

def OverlapRowStores : Pass<"adjit-overlap-row-stores", "func::FuncOp"> {
  let summary = "Run a row loop's last pass, which only writes a result row, one row late inside the next row's heaviest pass";
  let description = [{
    W3's gradient writes each row of `dx` in a pass of its own at the end of
    the row, after the sums it needs: 4 KiB of stores in a burst, with no
    arithmetic to overlap them (on a Zen 5 core that burst was a fifth of
    W3's time). This pass moves that pass into the next row's heaviest pass
    (the inner loop with the most operations), one step of it per step of
    the heaviest pass, and runs it for the last row after the loop.

    It applies to an `scf.for` without results whose last op is an
    `scf.for` (the store pass) that
    - writes only rows of function arguments that nothing reads and that
      nothing else in the row loop's body writes, and reads and writes
      nothing else but buffers;
    - has the same constant bounds and step as the heaviest pass;
    - takes from the row loop's body only values of ops without regions
      that are free of memory effects or are `memref.load`s, and the
      induction variable: they are computed again for the previous row
      before the heaviest pass;
    - reads buffers that nothing in the body writes (or frees) before the
      heaviest pass or in it, so that they still hold the previous row's
      values there.

    ```mlir
    scf.for %r = %c0 to %c512 step %c1 {
      ...                                   // the heaviest pass, then others
      %s = memref.load %scalar[%c0] : memref<1xf32>
      %out = memref.subview %dx[%r, 0] [1, 1024] [1, 1] : ...
      scf.for %j = %c0 to %c1024 step %c32 {  // the store pass
        %v = vector.transfer_read %tmp[%c0, %j], ... // + %s
        vector.transfer_write %v, %out[%c0, %j] ...
      }
    }
    // becomes
    scf.for %r = %c0 to %c512 step %c1 {
      %p = arith.subi %r, %c1 : index
      %has = arith.cmpi sgt, %r, %c0 : index
      %s = memref.load %scalar[%c0] : memref<1xf32>       // the previous row's
      %out = memref.subview %dx[%p, 0] [1, 1024] [1, 1] : ...
      scf.for %j = %c0 to %c1024 step %c32 {  // the heaviest pass
        ...
        scf.if %has { ... vector.transfer_write %v, %out[%c0, %j] ... }
      }
      ...
    }
    scf.if %any_rows { ... the store pass of row 511 ... }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def OverlapRowReductions : Pass<"adjit-overlap-row-reductions", "func::FuncOp"> {
  let summary = "Run a row loop's first reduction pass one row early, inside the previous row's heaviest pass";
  let description = [{
    W3's row loop starts each row by summing it (for its mean), then
    centres it on the mean, and only then runs its heaviest pass: the sum,
    its horizontal reduction and the mean are a dependence chain that every
    row waits on, with little arithmetic to overlap. This pass makes each
    step of the heaviest pass also take the same step of the next row's
    first reduction, so that the next row starts with its sums done; the
    row loop carries them (an iteration argument per result), and the
    first row's are computed before the loop.

    It applies to an `scf.for` with a constant step whose body holds an
    `scf.for` with results (the first such is the reduction pass) and,
    after it, a heaviest pass (the inner loop with the most operations)
    over the same constant range, where the reduction pass
    - only reads memory, from buffers that nothing in the row loop writes
      or frees (reading the next row early reads what it would read
      later);
    - has initial values defined outside the row loop;
    - takes from the row loop's body only values of ops without regions
      and free of memory effects, and the induction variable: they are
      computed again for the next row before the heaviest pass;
    - steps by the heaviest pass's step or a multiple of it. A wider pass
      (adjit-vectorize gives a reduction four registers a step, the GELU
      pass two) is narrowed first, when its body is reads along its
      induction variable, broadcasts, splat constants and elementwise ops
      on vectors of its step's lanes, and its results go only to
      `vector.reduction`s that are integer, min or max, or allow
      reassociation: the same elements are summed in another order.

    In the loop's last iteration the next row is the row itself again, and
    what is computed for it is never used. adjit-prefetch-next-rows, after
    this pass, then fetches the row after next for it: a row read in the
    heaviest pass as it is prefetched would wait on memory there (W3's
    value and gradient 1.5x slower).

    ```mlir
    scf.for %r = %c0 to %c512 step %c1 {
      %row = memref.subview %x[%r, 0] [1, 1024] [1, 1] : ...
      %sum = scf.for %j = %c0 to %c1024 step %c64 iter_args(%a = %zero) -> (vector<64xf32>) {
        %v = vector.transfer_read %row[%c0, %j], ... : ..., vector<64xf32>
        %s = arith.addf %a, %v fastmath<reassoc> : vector<64xf32>
        scf.yield %s : vector<64xf32>
      }
      %mean = vector.reduction <add>, %sum fastmath<reassoc> : vector<64xf32> into f32
      ...
      scf.for %j = %c0 to %c1024 step %c32 { ... }   // the heaviest pass
    }
    // becomes
    %any = arith.cmpi sgt, %c512, %c0 : index
    %first = scf.if %any -> (vector<32xf32>) {
      ... the pass for row 0, in steps of 32 ...
    } else {
      scf.yield %zero32 : vector<32xf32>
    }
    scf.for %r = %c0 to %c512 step %c1 iter_args(%sum = %first) -> (vector<32xf32>) {
      %mean = vector.reduction <add>, %sum fastmath<reassoc> : vector<32xf32> into f32
      ...
      %after = arith.addi %r, %c1 : index
      %has = arith.cmpi slt, %after, %c512 : index
      %n = arith.select %has, %after, %r : index
      %next = memref.subview %x[%n, 0] [1, 1024] [1, 1] : ...
      %res:3 = scf.for %j = %c0 to %c1024 step %c32 iter_args(..., %a = %zero32) -> (..., vector<32xf32>) {
        ...
        %v = vector.transfer_read %next[%c0, %j], ... : ..., vector<32xf32>
        %s = arith.addf %a, %v fastmath<reassoc> : vector<32xf32>
        scf.yield ..., %s : ..., vector<32xf32>
      }
      ...
      scf.yield %res#2 : vector<32xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def PrefetchNextRows : Pass<"adjit-prefetch-next-rows", "func::FuncOp"> {
  let summary = "Prefetch the next row's inputs during a row's heaviest pass";
  let description = [{
    A row loop (adjit-tile-and-fuse-rows) makes several passes over each
    row: W3's gradient sums x, centers it, runs GELU and its derivative,
    then combines. The rows of the caller's buffers that it reads arrive
    only when a pass first touches them, and the hardware prefetchers stop
    at each 4 KiB page, so every row starts with misses that no arithmetic
    overlaps. This pass prefetches the next iteration's rows during the
    current row's heaviest pass (the inner loop with the most operations),
    spread evenly over its iterations, one prefetch per cache line.

    It applies to an `scf.for` with two or more inner loops and constant
    bounds on the heaviest one, and to each `memref.subview` in its body
    that takes, per iteration, a contiguous row of at least
    `min-row-bytes` bytes from a function argument, and that something
    reads. The next row's view is the same subview with the induction
    variable advanced by one step (past the last row it points beyond the
    loop's rows; prefetches never fault). Loops with a single pass are left
    to the hardware prefetchers, which follow one sequential stream.

    ```mlir
    scf.for %r = %c0 to %c512 step %c1 {
      %row = memref.subview %x[%r, 0] [1, 1024] [1, 1] : ...
      scf.for ... { ... vector.transfer_read %row ... }  // a light pass
      scf.for %j = %c0 to %c1024 step %c32 { ... }       // the heaviest pass
    }
    // becomes
    scf.for %r = %c0 to %c512 step %c1 {
      %row = memref.subview %x[%r, 0] [1, 1024] [1, 1] : ...
      scf.for ... { ... vector.transfer_read %row ... }
      %r1 = arith.addi %r, %c1 : index
      %next = memref.subview %x[%r1, 0] [1, 1024] [1, 1] : ...
      scf.for %j = %c0 to %c1024 step %c32 {
        // 64 lines of 16 floats over 32 iterations: 2 per iteration
        %i0 = affine.apply affine_map<(d0) -> ((d0 floordiv 32) * 32)>(%j)
        memref.prefetch %next[%c0, %i0], read, locality<3>, data : ...
        %i1 = affine.apply affine_map<(d0) -> (((d0 floordiv 32) * 2 + 1) * 16)>(%j)
        memref.prefetch %next[%c0, %i1], read, locality<3>, data : ...
        ...
      }
    }
    ```
  }];
  let options = [
    Option<"lineBytes", "line-bytes", "int64_t", /*default=*/"64",
           "the target's cache line size in bytes">,
    Option<"minRowBytes", "min-row-bytes", "int64_t", /*default=*/"1024",
           "the shortest row worth prefetching, in bytes">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def JamStencilRows : Pass<"adjit-jam-stencil-rows", "func::FuncOp"> {
  let summary = "Compute several rows of a stencil's row loop in each pass over the columns";
  let description = [{
    A stencil's row loop reads, for each output row, several rows of one
    buffer (a 5-point Laplacian reads rows i - 1, i and i + 1), and each
    output row loads each of them again. On a Zen 4 core such a loop's
    speed followed its number of loads, cache hits included: a C loop
    reading three rows per output row streamed 7.6 GB/s of new rows at
    4096 x 4096 f32, and 16.9 computing four output rows per pass over the
    columns from six rows loaded once each (`performance.md`).

    This pass unrolls such a row loop by `rows` and jams the copies. The
    body's row slice (views, indices, and loads of buffers the body does
    not write) is computed for each row of a block first; then each part
    of the rest runs for every row of the block before the next part: an
    inner loop over the columns that reads three or more rows of one buffer
    (through views in the slice) becomes one loop that computes each row in
    turn at every step, with its own carried values (a row's partial
    sums), and a vector read of an address that an earlier row of the
    block read is that read's value (no buffer that the loop reads is
    written in the body, but LLVM cannot tell that across the rows'
    stores); other loops, and runs of ops without regions, are cloned row
    after row. Every result is computed as before, bit for bit. The rows
    left over (the trip count modulo `rows`) keep the original loop. (Two rows, `x[i + 1] - x[i]`, streamed 0.88 as fast
    jammed: they are left alone.)

    The order of the rows' work changes, so the pass applies only where
    that cannot change what is read or written: every buffer that the body
    writes is either read and written by one part that is not jammed, or
    never read and written only through views of row `i` (the induction
    variable) of sources from outside the loop, which never meet from one
    row to the next; the slice loads no written buffer. It applies to an
    `scf.for` over rows with step 1, constant bounds and no results; a
    jammed inner loop has no loops inside and bounds independent of the
    row.

    ```mlir
    scf.for %i = %c0 to %c6 step %c1 {
      %r0 = memref.subview %x0[%i, 0] [1, 64] [1, 1] : ...   // rows 0, 1, 2 of x
      %r1 = memref.subview %x1[%i, 0] [1, 64] [1, 1] : ...
      %r2 = memref.subview %x2[%i, 0] [1, 64] [1, 1] : ...
      %s = scf.for %j = %c0 to %c64 step %c16 iter_args(%a = %zero) -> (vector<16xf32>) {...}
      ... // the row's sum, accumulated
    }
    // becomes (rows = 2)
    scf.for %i = %c0 to %c6 step %c2 {
      ... // views of row %i, then of row %i + 1
      %s:2 = scf.for %j = %c0 to %c64 step %c16 iter_args(%a0 = %zero, %a1 = %zero) -> (...) {
        ... // row %i's step, then row %i + 1's
      }
      ... // row %i's sum, then row %i + 1's
    }
    ```
  }];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"4",
           "the rows computed per pass over the columns (1: none jammed)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def Avx512MinMax : Pass<"adjit-avx512-min-max", "ModuleOp"> {
  let summary = "Vector maximumf and minimumf of f32 and f64 with AVX-512DQ's vrangeps/vrangepd";
  let description = [{
    `arith.maximumf` and `arith.minimumf` are IEEE 754-2019's maximum and
    minimum: a NaN operand gives NaN, and +0 is above -0. x86's vmaxps and
    vminps are neither (they return the second operand for a NaN or equal
    zeros), so LLVM lowers each vector maximumf to six instructions (two
    blends on the sign, vmaxps, a compare and a masked move for NaN).
    AVX-512DQ's vrangeps (vrangepd) with control max (min) and the sign from the
    comparison orders signed zeros as maximum (minimum) does but returns the
    other operand for a quiet NaN: lanes where either operand is NaN take
    their sum instead, a NaN. Three instructions: a row maximum over 10
    classes in cache takes 0.75 of the time, log_softmax over them 0.9.

    A NaN-skipping `arith.maxnumf` (`arith.minnumf`, from `adjit.reduce`'s
    `ignores_nan`: softmax's shift) that advances a reduction's accumulator
    (an `scf.for` iter_arg started from a constant without NaN) becomes one
    vmaxps (vminps) with the accumulator second, which it returns for a NaN
    element, instead of LLVM's three instructions for maxnum. softmax along
    rows of 1024 on Zen 4: 0.85-0.95 of the time (paired runs).

    Applies to 1-D vectors of f32 or f64 of whole 512-bit registers; the pipeline
    runs it for targets with AVX-512DQ (every AVX-512 CPU since Skylake-SP
    and Zen 4).

    ```mlir
    %m = arith.maximumf %x, %y : vector<16xf32>
    // becomes
    %r = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%x, %y, %c5, %x, %all, %c4)
    %nan = arith.cmpf uno, %x, %y : vector<16xf32>
    %sum = arith.addf %x, %y : vector<16xf32>
    %m = arith.select %nan, %sum, %r : vector<16xi1>, vector<16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def StreamStores : Pass<"adjit-stream-stores", "func::FuncOp"> {
  let summary = "Write large results that the function never reads with nontemporal stores";
  let description = [{
    A store to a cache line that is not in the cache first reads the line
    from memory (a read for ownership): writing W3's 32 MiB input gradient
    read 32 MiB more than the minimal traffic. A nontemporal store writes
    whole lines without reading them, but leaves them out of the cache, so
    it pays only for data that is not read again soon.

    A vector store (or a contiguous, in-bounds, unmasked 1-D
    `vector.transfer_write`, which becomes one) into a function argument,
    or a view of one, becomes `vector.store {nontemporal = true}` when the
    argument has a static size over `min-bytes` (0: four times the host's L2
    cache per core; a smaller result stays in the L3 for its reader) and
    nothing in the function reads it: a result computed and written once. The code generator checks each such store's address at
    run time and uses a plain store where it is not aligned to the vector
    register, as x86's nontemporal stores require (compiler/lib/StreamingStores.cpp).
    Only results whose rows are whole cache lines, and whose every store
    writes whole lines, stream: a line written partly by nontemporal and
    partly by plain stores leaves the write-combining buffer half written
    and is read back (a log_softmax over rows of 10 floats ran 7x slower).

    ```mlir
    vector.transfer_write %v, %row[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    // becomes
    vector.store %v, %row[%c0, %j] {nontemporal = true} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"0",
           "the largest result not streamed, in bytes (0: four times the host's L2 cache)">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def ApproximateMath : Pass<"adjit-approximate-math", "ModuleOp"> {
  let summary = "Replace f32 transcendentals by vectorizable polynomials";
  let description = [{
    f32 (and, through f32, f16/bf16) `math` ops such as tanh, erf, exp, log,
    log1p, expm1 are rewritten into MLIR's polynomial approximations, which
    are plain arithmetic and vectorize. tanh has a pattern of its own:
    upstream's rational approximation divided before multiplying by x, so
    that tiny inputs need no select of x itself (three vector operations
    fewer; see passes/lib/ApproximateMath.cpp). f64 ops are left alone: they
    become libm calls later, because the polynomials target single
    precision. So are scalar f32 sin and cos, whose upstream argument
    reduction is inaccurate. Vectors of f32 sin and cos get a reduction of
    their own: `|x| - k pi/2` with pi/2 in three f32 parts subtracted by
    FMAs (exact for `|x|` up to 1e5, so accurate next to the zeros of sin
    and cos too), Cephes' polynomials on [-pi/4, pi/4], and the quadrant
    from `k`. Lanes beyond 1e5, infinities and NaN take libm's result
    instead: a vector with such a lane (`scf.if`) calls the runtime's
    `adjit_sinf_lanes` / `adjit_cosf_lanes` once, on a buffer allocated on
    the stack at the function's (or OpenMP region's) start, and keeps
    libm's values for those lanes only, so that each lane's result depends
    on its own input alone. The code is a private function per kind and
    vector type (`adjit_sinf_v16`) that each op calls: `always_inline`, or
    `no_inline` when the module has more than 64 vector sin and cos, so
    that the caller's block stays whole (lowering one `scf.if` per sin in a
    block to branches moved the rest of the block each time, quadratic in
    their number, and LLVM's code generation of thousands of inlined copies
    grew as fast):

    ```mlir
    %y = math.sin %x : vector<16xf32>
    // becomes
    %y = func.call @adjit_sinf_v16(%x) : (vector<16xf32>) -> vector<16xf32>
    // whose body, after a memref.alloca of the buffer, is
    %outside = vector.reduction <or>, %beyond : vector<16xi1> into i1
    // k = roundeven(|x| 2/pi), three math.fma, two polynomials, select
    // by k's bit 0, sign from k's bit 1 and x's sign: %poly
    %y = scf.if %outside -> (vector<16xf32>) {
      // stored to the buffer, func.call @adjit_sinf_lanes, loaded: %libm
      %mixed = arith.select %beyond, %libm, %poly : vector<16xi1>, vector<16xf32>
      scf.yield %mixed : vector<16xf32>
    } else {
      scf.yield %poly : vector<16xf32>
    }
    ```

    With `avx512`, exp of a vector of 16k f32 is scaled by 2^k with
    `x86vector.avx512.mask.scalef` (vscalefps), which also gives exp's
    subnormal results and overflow to inf: 15 vector operations instead of
    upstream's 21. And tanh(x) and sigmoid(x) of one operand in one block
    (sigmoid as `1 / (1 + exp(-x))`, LogisticOp's scalar rule) share one
    exponential, as sin and cos share a sincos: e = exp(-|x|), 1 - e and
    1 + e from a 32-entry table of 2^(j/32) (vpermi2ps, through
    `llvm.call_intrinsic`), a cubic and vscalefps; then tanh(x) =
    copysign(u, x) / (1 + e^2) with u = (1 - e) (1 + e), and sigmoid(x) =
    (x < 0 ? e : 1) / (1 + e). 12 multiplies or FMAs for both instead of
    21, the same two divisions, within 3.5 and 2.9 ulp; its dependence
    chain is kept short (the loops around it wait on their chains).
    Without `avx512` (and for scalars and vectors of other lengths) the two
    share an exponential built from arithmetic every ISA has: e = 2^k e^r
    with k = round(-|x| / ln 2), e^r - 1 from Cephes' expf polynomial, 2^k
    from its bits as the product of two normal powers of two (so that
    subnormal results round as exp's do). 16 multiplies or FMAs instead of
    22, within 3.1 and 2.3 ulp; on a Zen 1 core (AVX2) W1's value took 0.75
    of the time, its value and gradient 0.93.

    With `one-division` (set for targets whose vector division is slow
    against their multiplies: Intel cores, where a 16-lane `vdivps` takes
    the time of 20 FMAs; not AMD Zen, about 5 on Zen 5) the two also share
    one division: r = 1 / ((1 + e) (1 + e^2)), tanh(x) = copysign(u (1 + e),
    x) r and sigmoid(x) = (x < 0 ? e : 1) (1 + e^2) r, for 4 multiplies
    more and about 2 ulp (tanh within 5.6, sigmoid within 3.8 ulp in the
    math test). On an Intel Xeon (AVX-512) W1's value and gradient took
    0.83-0.94 of the time, its value 0.85-1.01. With
    `reciprocal-by-newton-step` r is not a division but `vrcp14ps`'s
    estimate r0 and a Newton step, r0 + r0 (1 - d r0), within an ulp of the
    quotient (the math test's worst cases unchanged): three vector
    operations, and no wait on the divider; W1's value and gradient took
    0.91-0.92 of the time, its value 0.98. (The same for tanh's rational
    polynomial, P r0 corrected by r0 (P - Q P r0), made W3's forward 0.94
    of the time but its value and gradient 1.01-1.04: it divides.)
  }];
  let options = [
    Option<"avx512", "avx512", "bool", /*default=*/"false",
           "the target has AVX-512F (x86vector's scalef)">,
    Option<"oneDivision", "one-division", "bool", /*default=*/"false",
           "tanh and sigmoid of one operand also share one division "
           "(targets whose vector division is slow: dividesSlowly)">,
    Option<"reciprocalByNewtonStep", "reciprocal-by-newton-step", "bool", /*default=*/"false",
           "with one-division, on whole AVX-512 registers of f32, the shared "
           "division is a vrcp14ps estimate refined by a Newton step (with "
           "avx512, where dividesSlowly)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect", "::mlir::x86vector::X86VectorDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect"
  ];
}

def EraseOptimizationBarriers : Pass<"adjit-erase-optimization-barriers", "ModuleOp"> {
  let summary = "Replace adjit.optimization_barrier by its operands";
  let description = [{
    Runs just before bufferization, when no pass that merges or fuses
    tensor computations is left: what `adjit::checkpoint` recomputes in the
    backward pass stays a computation of its own, whose buffers are
    allocated where the backward pass needs them.
  }];
}

def OutlineLoopNests : Pass<"adjit-outline-loop-nests", "ModuleOp"> {
  let summary = "Give each loop nest of a long function a function of its own, one per kind";
  let description = [{
    A deep model's program is one function of hundreds of loop nests, and
    the layers repeat the same nests on other buffers. Lowered as it is,
    every copy costs the rest of the pipeline and LLVM the same time again
    (a 12-layer transformer's training step: 380 nests, 37 of them
    different), and some of LLVM's loop passes take time quadratic in the
    number of nests in one function.

    In a function with more than `min-nests` outermost loops (loop-like ops
    of its body), this pass moves each loop into a private function and
    calls it there; so it does in a loop's body with more than `min-nests`
    loops (a program of a few rows, tiled by rows, is one loop around all
    of its nests: 600 matmuls there once made one LLVM function of 47,000
    lines, 17 s of -O3). The values the loop reads from outside become the
    function's arguments, except constants, which are cloned in. Loops that
    are the same up to those arguments (same ops, attributes and types)
    share one function, made for the first. Runs on buffers, after the
    memref-level loop passes and before the loops become OpenMP regions, so
    each function is lowered once; smaller functions are left whole.

    ```mlir
    func.func @step(%a: memref<64xf32>, %b: memref<64xf32>, ...) {
      affine.for %i = 0 to 64 { ... %a ... }
      affine.for %i = 0 to 64 { ... %b ... }   // the same loop on %b
      ...
    }
    ```
    becomes
    ```mlir
    func.func @step(%a: memref<64xf32>, %b: memref<64xf32>, ...) {
      call @step_nest0(%a) : (memref<64xf32>) -> ()
      call @step_nest0(%b) : (memref<64xf32>) -> ()
      ...
    }
    func.func private @step_nest0(%arg0: memref<64xf32>) {
      affine.for %i = 0 to 64 { ... %arg0 ... }
      return
    }
    ```
  }];
  let options = [
    Option<"minNests", "min-nests", "int64_t", /*default=*/"64",
           "Outline the loops of functions (and loop bodies) with more loop nests than this">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def BoundInsertChains : Pass<"adjit-bound-insert-chains", "ModuleOp"> {
  let summary = "Continue long chains of tensor.insert_slice in a copy every 32 links";
  let description = [{
    A chain of `tensor.insert_slice` ops each updating the one before (256
    `dynamic_update_slice` calls unrolled at trace time, `x.at[i].set(v)`
    style) makes one alias set of every link, and one-shot bufferization's
    analysis (empty-tensor elimination's too) takes time growing with about
    the fourth power of its length: 64 links took 0.6 s, 96 5.9 s, 256 161 s.
    Run just before bufferization, this pass makes every 32nd link of a
    chain update a copy of the tensor (`bufferization.alloc_tensor copy`),
    which bounds each alias set: 256 links then take about 0.5 s, for one
    extra copy of the tensor per 32 updates. Shorter chains are unchanged.

    ```mlir
    %1 = tensor.insert_slice %u1 into %x[...]    // links 1 .. 31
    ...
    %c = bufferization.alloc_tensor() copy(%31) : tensor<256xf32>
    %32 = tensor.insert_slice %u32 into %c[...]  // a new chain starts
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def SplitSharedInits : Pass<"adjit-split-shared-inits", "ModuleOp"> {
  let summary = "Give each op output that starts from a shared initial value one of its own";
  let description = [{
    CSE merges identical fills, so one zero tensor often starts several
    reductions and contractions; bufferization then fills one buffer, keeps
    it alive and copies it into each op's output. Run just before
    bufferization (after the last CSE), this pass clones the fill (and its
    `tensor.empty`) before every destination-style op that uses it as an
    init, so that each output is filled in place and the shared buffer,
    its copies and its memory go. Other uses keep the original fill, which
    goes when there are none.

    Likewise, a linalg op whose outputs start from one empty tensor (or one
    slice of it) several times, unread by its body, gets a `tensor.empty`
    of its own for each repeat. At most one of them could be written in
    place anyway, and one-shot bufferization compares every pair of writes
    into a value's aliases: row loops merged by `adjit-merge-generics` with
    hundreds of outputs made its time grow with the square of the program
    (a 8000-op chain under grad: 4.1 s in it, 0.36 s with this).

    For the same reason, an empty tensor that several ops use (CSE leaves one
    per shape: in a 12-layer transformer's training step, up to 200 uses)
    gets a clone per use, made where the original is so that it dominates
    the same uses. Each use gets a buffer of its own either way; empty-tensor
    elimination and one-shot bufferization took 0.85 s on that step, 0.25 s
    with this. A reshape of an empty tensor (a flattened elementwise op's
    output) first becomes an empty tensor of its own shape: CSE had shared
    one collapsed empty tensor among the 79 tanh ops of a chain of small
    layers, whose bufferization then grew 8x per doubling of the chain
    (80 layers under value_and_grad: 3.5 s, 0.06 s with this).

    ```mlir
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
    %a = linalg.generic ... outs(%z : tensor<256x1024xf32>) ...
    %b = linalg.generic ... outs(%z : tensor<256x1024xf32>) ...
    ```
    becomes
    ```mlir
    %e1 = tensor.empty() : tensor<256x1024xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
    %a = linalg.generic ... outs(%z1 : tensor<256x1024xf32>) ...
    %e2 = tensor.empty() : tensor<256x1024xf32>
    %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
    %b = linalg.generic ... outs(%z2 : tensor<256x1024xf32>) ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def SinkInsertSlices : Pass<"adjit-sink-insert-slices", "ModuleOp"> {
  let summary = "Move block writes after the reads of the tensor they write into";
  let description = [{
    A `tensor.insert_slice` into a tensor that is still read after it (a
    slice of the old value, taken before and used later) cannot be written in
    place: one-shot bufferization copies the whole destination first. The
    gradient of `dynamic_update_slice` in a reverse loop is such a case: the
    loop reads row `i` of the carried cotangent buffer and zeroes it, and the
    row's uses come after the zeroing, so each iteration copied the buffer
    (1000 steps of a 1000 x 256 buffer: 22.7 ms, 0.3 ms in place).

    Run just before bufferization, this pass moves each such write down to
    just before its first user in its block (the loop's yield, here): legal,
    as the write is pure and its operands are defined before it, and then
    every read of the old value comes first.

    ```mlir
    %row = tensor.extract_slice %buf[%i, 0] [1, 64] [1, 1] : tensor<100x64xf32> to tensor<1x64xf32>
    %zeroed = tensor.insert_slice %zeros into %buf[%i, 0] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<100x64xf32>
    %use = linalg.generic ... ins(%row ...)   // the write moves below this read
    scf.yield %zeroed, %use
    ```
  }];
}

def SplitDeallocations : Pass<"adjit-split-deallocations", "func::FuncOp"> {
  let summary = "Free distinct allocations one by one instead of through one bufferization.dealloc";
  let description = [{
    Ownership-based buffer deallocation ends a function with one
    `bufferization.dealloc` of every temporary it allocated. Upstream's
    simplification then asks, for each pair of them, whether they may
    alias: quadratic in the number of temporaries (a 16000-op chain under
    grad had thousands, 10 s in that pass). A dealloc that retains nothing,
    whose memrefs are each the result of a different `memref.alloc`, and
    whose conditions are constants needs none of that: distinct allocations
    never alias, so each one whose condition is true gets its own
    `memref.dealloc` at the same place, and the op goes. Any other dealloc
    is left to upstream. Runs between the ownership-based deallocation (and
    its canonicalization) and the simplification.

    ```mlir
    bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>) if (%true, %false)
    ```
    becomes
    ```mlir
    memref.dealloc %a : memref<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def FreeChunkTemporaries : Pass<"adjit-free-chunk-temporaries", "func::FuncOp"> {
  let summary = "Free the temporaries of each parallel chunk at its end";
  let description = [{
    Upstream's ownership-based buffer deallocation does not look into
    `scf.forall` bodies, so the buffers a parallel chunk allocates (its row
    block's temporaries, hoisted out of the block loop) were never freed:
    every call of W3's gradient lost about 80 KB. Runs after it: a
    `memref.alloc` directly in a chunk's body that nothing deallocates is
    freed just before the body's terminator, which is sound because a chunk
    body yields nothing and runs its operations in order. An alloc whose
    buffer could outlive the chunk (stored, returned, passed to a call) is
    an error, never a silent leak or a premature free.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def PlanBuffers : Pass<"adjit-plan-buffers", "func::FuncOp"> {
  let summary = "Place temporaries in one arena per call, each live from its first to its last use";
  let description = [{
    Runs after buffer deallocation, which frees every temporary at the end
    of its block: all of a function's temporaries were live until it
    returned, and its peak was their sum. A `memref.alloc` directly in the
    function body with one `memref.dealloc` in the same block and no use
    that carries it away (a return, a call, a yield) is planned: it lives
    from its first to its last use, counted in top-level ops (a use inside
    a loop or a parallel chunk counts as the op that contains it; a view
    made of it counts as a use).

    Planned temporaries of static size share one arena, a `memref.alloc`
    of bytes made when the function starts and freed when it returns. Each
    becomes an `adjit.arena_buffer` at an offset chosen at compile time
    (greedy by size, as TFLite's arena planner: the largest first, each in
    the smallest gap left by the buffers live at the same time), made just
    before its first use, and its deallocation an `adjit.arena_release`
    just after its last use. Buffers whose lifetimes intersect never
    overlap; a dead buffer's bytes serve the buffers made after it. A
    planned temporary of run-time size is allocated just before its first
    use and freed just after its last. Temporaries of loops and parallel
    chunks are allocated for each run of their body and stay where they
    are. `adjit compile --emit=memory-plan` prints every temporary's
    lifetime and offset, the arena and the peak.

    ```mlir
    %a = memref.alloc() : memref<1024xf32>
    %b = memref.alloc() : memref<1024xf32>
    %c = memref.alloc() : memref<1024xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<1024xf32>)
    linalg.copy ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>)
    linalg.copy ins(%b : memref<1024xf32>) outs(%c : memref<1024xf32>)
    // ... uses of %c only ...
    memref.dealloc %a : memref<1024xf32>
    memref.dealloc %b : memref<1024xf32>
    memref.dealloc %c : memref<1024xf32>
    ```
    becomes (`%c` takes the bytes of `%a`, dead by then)
    ```mlir
    %arena = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
    %a = adjit.arena_buffer %arena[0] : memref<8192xi8> to memref<1024xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<1024xf32>)
    %b = adjit.arena_buffer %arena[4096] : memref<8192xi8> to memref<1024xf32>
    linalg.copy ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>)
    adjit.arena_release %a : memref<1024xf32>
    %c = adjit.arena_buffer %arena[0] : memref<8192xi8> to memref<1024xf32>
    linalg.copy ins(%b : memref<1024xf32>) outs(%c : memref<1024xf32>)
    adjit.arena_release %b : memref<1024xf32>
    // ... uses of %c only ...
    adjit.arena_release %c : memref<1024xf32>
    memref.dealloc %arena : memref<8192xi8>
    ```
  }];
  let dependentDialects = ["::mlir::adjit::AdjitDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MarkEntryPoints : Pass<"adjit-mark-entry-points", "ModuleOp"> {
  let summary = "Mark public functions as entry points of the calling ABI";
  let description = [{
    Public `func.func` ops are what callers invoke with their own buffers.
    Their arguments get `bufferization.writable = false`, so bufferization
    never writes into a caller's input, and the functions get
    `llvm.emit_c_interface`, so the LLVM lowering adds `_mlir_ciface_<name>`
    wrappers taking memref descriptors by pointer, which
    `adjit-emit-entry-points` builds on. A result that is an argument or
    repeats another result is copied, as each result has its own buffer.

    A donated argument (`adjit.aliasing_output = R`, JitOptions::donate) is
    writable instead, so that the ops computing result R, which
    `adjit-write-into-dead-inputs` made write into it, bufferize in place
    when nothing reads the argument afterwards. The caller passes its buffer
    as result R's too: a result computed elsewhere is copied into it at the
    end, like any result. Result R gets `adjit.aliasing_input` for
    `adjit-elide-donated-copies`, and the function `adjit.donates_buffers`:
    two of its arguments may then be one buffer, which
    `adjit-pipeline-loops` must not reorder around.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def AllocateReshapedResults : Pass<"adjit-allocate-reshaped-results", "func::FuncOp"> {
  let summary = "Allocate a result returned through a reshape in the result's shape";
  let description = [{
    A function that returns a reshaped view (`memref.expand_shape` or
    `collapse_shape`) of an allocation of static shape, such as the result
    of a generic that `adjit-flatten-short-rows` ran over its operands
    collapsed, allocates the result's shape instead, and the code that wrote
    the allocation writes it through the inverse reshape: the result is
    then an allocation, which `buffer-results-to-out-params` (hoisting
    static allocations) replaces by the out-parameter, where it would
    otherwise copy the view into it.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def ElideDonatedCopies : Pass<"adjit-elide-donated-copies", "func::FuncOp"> {
  let summary = "Return a donated argument's result without copying it";
  let description = [{
    A result computed in place in a donated argument's buffer (see
    `adjit-mark-entry-points`) is returned as that argument, and
    `buffer-results-to-out-params` would copy it into its out-parameter. The
    caller passes the donated buffer as that out-parameter too (the
    runtime's Executable does), so the copy would be of a buffer onto
    itself: the result is returned as an allocation that nothing writes
    instead, which `buffer-results-to-out-params` (hoisting static
    allocations) replaces by the out-parameter. A result that bufferization
    computed in a buffer of its own keeps it until the end, where it is
    copied into the out-parameter: hoisting that buffer into the
    out-parameter would overwrite the donated argument while it may still be
    read. Runs between the two; consumes the results'
    `adjit.aliasing_input`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def MathToLibm : Pass<"adjit-math-to-libm"> {
  let summary = "Call libm (or libdevice) for the math ops that need it";
  let description = [{
    Runs on a module or a `gpu.module` (any symbol table). Scalar `math` ops
    whose accurate evaluation needs libm (tanh, erf, expm1, log1p, sin, cos:
    f64, and f32 sin/cos) or that LLVM cannot lower at all (tan, asin, acos,
    atan, atan2, sinh, cosh, asinh, acosh, atanh, cbrt, where no polynomial
    of adjit-approximate-math took them) become calls to tanh, tanhf, ...
    Everything else is left to LLVM intrinsics (fma, floor, sqrt, exp, log,
    pow...), which vectorize. Upstream's math-to-libm would also turn the
    polynomials' fma and floor into calls, and its LLVM lowering computes
    expm1 and log1p inexactly as exp(x) - 1 and log(1 + x).

    With `device-library`, inside GPU kernels: only the ops that neither
    LLVM nor upstream's GPU-to-NVVM lowering handles (asin, acos, sinh,
    cosh, asinh, acosh, atanh among the above, and roundeven) become calls,
    of libdevice's `__nv_asinf`, `__nv_asin`, ..., `__nv_rintf` (declared
    as `llvm.func`s: GPU-to-NVVM would give a `func.func` a C wrapper).

    With `vector-isa`, vectors of the functions that glibc's vector math
    library has (every f64 transcendental above plus exp, log, log2 and
    pow; f32 pow and the functions LLVM cannot lower) become calls to its
    variants for that ISA
    of the x86-64 vector function ABI (`_ZGVeN8v_tanh`: AVX-512, 8 lanes of
    f64, in and out in a zmm register), a register's lanes per call; a
    vector's last lanes short of a register are filled with ones. libmvec
    comes with libm (glibc 2.35 or later) and is accurate to 4 ulp, where
    libm is to 1. A vector of the others, or without `vector-isa`, is
    left to LLVM, which calls libm once per lane.
  }];
  let options = [
    Option<"vectorIsa", "vector-isa", "std::string", /*default=*/"\"\"",
           "The ISA letter of the x86-64 vector function ABI whose libmvec "
           "variants vectors call: b (SSE2), c (AVX), d (AVX2), e (AVX-512); "
           "empty: none">,
    Option<"deviceLibrary", "device-library", "bool", /*default=*/"false",
           "Call libdevice's __nv_ functions (in GPU kernels)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def WidenedHalfMinMax : Pass<"adjit-widened-f16-min-max", "ModuleOp"> {
  let summary = "maximumf and minimumf of f16 values widened to f32, as compares and selects";
  let description = [{
    adjit computes on f16 in f32: `maximum(x, y)` of f16 tensors is an
    `arith.maximumf` of the two operands widened by `arith.extf`. LLVM's
    InstCombine narrows `llvm.maximum(fpext x, fpext y)` back to a maximum
    of f16 vectors, which its x86 backend, without AVX512-FP16, expands lane
    by lane and gets wrong: `maximum([nan, 0], [0, nan])` gave `[0, 0]`.
    This pass writes such a maximumf (minimumf) as IEEE 754-2019 defines it
    in integer compares of the operands' bits, which LLVM cannot narrow
    (f16 compares would be scalarized too). A float's bits as a signed
    integer, with the magnitude bits flipped where the sign is set, order
    as the floats do, -0 below +0; a NaN's magnitude bits exceed
    infinity's. x wins where it is NaN, or where y is not and x's key is
    above (below) y's.

    ```mlir
    %m = arith.maximumf %x, %y : vector<8xf32>   // %x, %y: arith.extf of f16
    // becomes, with bits(v) = arith.bitcast %v : vector<8xf32> to vector<8xi32>
    //   key(v) = bits(v) ^ ((bits(v) >> 31) & 0x7fffffff)
    //   magnitude(v) = bits(v) & 0x7fffffff
    %xNaN = arith.cmpi sgt, <magnitude(x)>, <0x7f800000>
    %yNumber = arith.cmpi sle, <magnitude(y)>, <0x7f800000>
    %ahead = arith.cmpi sgt, <key(x)>, <key(y)>           // slt for minimumf
    %wins = arith.ori %xNaN, <%yNumber and %ahead>
    %m = arith.select %wins, %x, %y
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ExpandBFloat16 : Pass<"adjit-expand-bf16", "ModuleOp"> {
  let summary = "Expand bf16 conversions into integer arithmetic";
  let description = [{
    `arith.extf`/`arith.truncf` between bf16 and f32 become bit
    manipulation (round to nearest even), since LLVM's x86 backend has no
    bf16 conversion without AVX512-BF16. A NaN narrowed keeps its sign and
    leading payload bits, quieted (its high half | 0x40), as
    vcvtneps2bf16 and XLA keep them; upstream's expansion, used for
    widening only, would give +NaN (the sign of 0/0's NaN is what
    `top_k`'s order reads). `arith.cmpf` of bf16 values (a sort's
    comparator) compares them widened to f32, which is exact, as LLVM
    would otherwise narrow them back through `__truncsfbf2`. Nothing else
    of upstream `arith-expand` runs: its max/min expansion loses the sign
    of zero, while LLVM's own `llvm.maximum`/`llvm.minimum` lowering keeps
    it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def CarryBFloat16AsI16 : Pass<"adjit-carry-bf16-as-i16", "ModuleOp"> {
  let summary = "Carry bf16 values of the LLVM dialect as i16";
  let description = [{
    After `adjit-expand-bf16`, bf16 values are only loaded, stored,
    selected and passed between blocks. LLVM's x86 backend holds a bf16
    that lives across blocks in an f32 register and narrows it back with a
    call to `__truncsfbf2` unless the CPU has AVX512-BF16: the libgcc of
    GCC 12 does not define it, so neither the JIT nor a program linking an
    ahead-of-time object could resolve it. This pass gives every such value
    (scalar or vector) the type i16 of the same width: loads, stores,
    selects, element and shuffle ops, masked loads and stores, block
    arguments and branches take it as they are; so do private functions
    (outlined loop nests), whose bf16 parameters and results become i16,
    and their calls and returns; bf16 constants become the i16 constants
    of their bits; bitcasts from and to i16 disappear. An op that would
    compute on a bf16 (a call of a public function taking one, its return)
    gets it back through a bitcast right before it, in its own block.

    ```mlir
    %b = llvm.bitcast %bits : i16 to bf16
    llvm.br ^next
  ^next:
    llvm.store %b, %p : bf16, !llvm.ptr
    ```
    becomes
    ```mlir
    llvm.br ^next
  ^next:
    llvm.store %bits, %p : i16, !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def EmitEntryPoints : Pass<"adjit-emit-entry-points", "ModuleOp"> {
  let summary = "Add a packed-argument entry point for each public function";
  let description = [{
    Runs on the LLVM dialect after `_mlir_ciface_<name>` wrappers exist and
    adds `adjit_entry_<name>(ptr %args)`, where `%args` points to an array of
    pointers to memref descriptors, inputs first and outputs after. One
    signature for every function lets the JIT and ahead-of-time callers
    invoke any entry without generating C++ per signature.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}


def MapToGpu : Pass<"adjit-map-to-gpu", "ModuleOp"> {
  let summary = "Turn each structured op of a bufferized program into a gpu.launch";
  let description = [{
    Every `linalg` op on buffers outside a row group becomes one
    `gpu.launch`, in one of three forms.

    - A reduction of at least 32 elements per output point, with at most
      65536 points, whose outputs combine with an op a block-wide
      `gpu.all_reduce` computes (add, mul, max, min, and, or, xor on 32-bit
      values): one block per point; its threads stride over the reduction
      loops with private accumulators, the block combines them (warp
      shuffles, then shared memory), and thread 0 folds the result into
      the output. Row sums of W3 and a full sum such as W1's run this way;
      a long reduction with few points is split into chunks of at least
      4096 elements, one block each, combined by a second launch.
    - Such a reduction whose innermost loop is parallel (column sums of a
      row-major matrix: bias gradients, LayerNorm's dgamma), with at least
      32 points: blocks of 32 neighbouring points by 8 row groups, so that
      a warp's loads are one coalesced row segment; the row groups combine
      in shared memory; long columns are split over blocks along y and
      combined by a second launch.
    - Anything else: one thread per point of the parallel loops, 256
      threads per block, the last parallel dimension fastest across
      neighbouring threads so that loads and stores coalesce. A thread runs
      the reduction loops in order and keeps each output that the parallel
      loops alone index (an accumulator) in a register. An op without
      reduction loops whose points fill at least 1024 blocks of 1024 gives
      each thread 4 points, a launch apart: their loads first, then their
      payloads, then their stores.

    The strided loops of the reduction forms are unrolled 4 times (with a
    remainder loop): a GPU hides memory latency only with several loads per
    thread in flight.

    A row group's chunks (the `scf.forall` of `adjit-tile-and-fuse-rows`
    with `gpu`) become one launch with a thread block per chunk, sized to
    the group's widest op (at most `row-threads`, 256 by default). The block runs its rows
    one at a time, and each structured op of a row runs on all its
    threads: a reduction to one value strides over the row and ends in a
    block-wide `gpu.all_reduce` whose result thread 0 stores; other ops
    share their points among the threads, element i of a row's buffer on
    thread i mod the block's threads. A barrier follows an op when the next
    one reads an element that another thread wrote (or writes one that
    another thread touched) since the last barrier, and at the end of each
    row: a row's temporary and the reduction over it share no barrier, nor
    do the per-row scalars that thread 0 alone stores and reads until every
    thread reads one. A row's elementwise work thus reads
    the row from the multiprocessor's cache, not from device memory, and
    its per-row scalars (LayerNorm's mean and variance) never leave the
    block. The chunk's temporaries become its block's slice of one
    allocation with a leading chunk dimension.

    With `gemm-library`, a contraction marked by `adjit-select-kernels` that
    cuBLAS can run in place stays on the host as it is: the launch plan
    calls the library for it.

    A `linalg.fill` of a whole buffer (an allocation or an argument) that
    the next user accumulates into, with nothing else reading it before,
    folds into that reduction's kernel, which starts from the fill's value:
    one launch less per reduction (W3's value+grad went from 19 to 13).

    A scalar input that the host would read from a buffer (pad's padding
    value) is read by the kernel. Other host code that touches buffers (the
    loops of scatter_add) runs unchanged on one GPU thread. The host
    function keeps allocations, views and launches only; the module is
    marked `gpu.container_module` for kernel outlining.
  }];
  let options = [
    Option<"gemmLibrary", "gemm-library", "bool", /*default=*/"false",
           "Leave the contractions that adjit-select-kernels marked and a GEMM "
           "library can run in place (matchLibraryGemm) on the host, for the "
           "launch plan's gemm steps (cuBLAS)">,
    Option<"rowThreads", "row-threads", "int64_t", /*default=*/"256",
           "The most threads of a row group's thread block (a multiple of 32): "
           "fewer threads per block keep more rows in flight per "
           "multiprocessor">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def EmulateGpuLaunches : Pass<"adjit-emulate-gpu-launches", "ModuleOp"> {
  let summary = "Run gpu.launch ops as host loops, for tests without a GPU";
  let description = [{
    A testing aid: each `gpu.launch` (before kernel outlining, with
    constant sizes) becomes loops over its blocks and, inside, over its
    threads, so that the CPU computes what the kernels
    `adjit-map-to-gpu` made compute on a GPU. A block's body is cut at
    its top-level `gpu.barrier` and `gpu.all_reduce` ops: every thread runs
    one piece before any runs the next; a value that a later piece uses is
    kept in an array with an element per thread; a `gpu.all_reduce` folds
    the threads' operands in thread order. Shared memory is a host array.
    Sequential threads are one valid schedule of a race-free kernel, so
    the lit tests under tests/ir/gpu-emulated-*.mlir check the GPU mapping's
    numbers (chunks, remainders, unrolled folds, merged outputs) in CI.
    Synchronisation inside nested regions is rejected.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def LowerGpuAllReduce : Pass<"adjit-lower-gpu-all-reduce", "ModuleOp"> {
  let summary = "Expand block-wide gpu.all_reduce ops in outlined kernels";
  let description = [{
    Upstream's all-reduce expansion: each `gpu.all_reduce` becomes a
    butterfly of warp shuffles, one partial result per warp in shared
    memory (a workgroup attribution of the kernel), and a last shuffle
    reduction by the first warp. It needs the kernels outlined.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::memref::MemRefDialect"
  ];
}

def MergeGpuModules : Pass<"adjit-merge-gpu-modules", "ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    Kernel outlining makes one `gpu.module` per launch. Merged, a program
    compiles to one PTX module that the runtime loads once; kernels keep
    their names (renamed only on a clash) and `gpu.launch_func` ops are
    re-pointed at them.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // ADJIT_PASSES_TD
