// Contractions that the runtime's GEMM kernels serve
// (runtime/include/adjit/runtime/Gemm.h): adjit-select-kernels marks them in
// the fused stage, adjit-contractions-to-calls replaces them by calls once
// they work on buffers. Packed, register-blocked kernels reach the FMA peak
// where a loop nest handed to LLVM reaches a fraction of it.

#include "adjit/Passes/ContractionKernels.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_SELECTKERNELS
#define GEN_PASS_DEF_CONTRACTIONSTOCALLS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

constexpr StringLiteral kGemmPrefix = "adjit_gemm_";
// The library call that overwrites C rather than accumulating into it.
constexpr StringLiteral kOverwriteSuffix = "_overwrite";

// The loops of a contraction C[b, i, j] += A[b, i, p] * B[b, p, j], each
// operand indexing any order of its loops; -1 for an absent batch, i or j.
// The kernel takes one batch loop; further batch loops (attention's batch
// and heads, whose strides need not merge into one) are `outerBatches`,
// run as loops around the call.
struct GemmLoops {
  int64_t batch = -1, i = -1, j = -1, p = -1;
  SmallVector<int64_t, 2> outerBatches;
};

bool isBlockArgument(Value v, Block &body, unsigned index) {
  auto argument = dyn_cast<BlockArgument>(v);
  return argument && argument.getOwner() == &body && argument.getArgNumber() == index;
}

// A float multiply-accumulate body: yield(c + a * b), in either order.
bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(body.front());
  auto add = dyn_cast<arith::AddFOp>(*std::next(body.begin()));
  auto yield = dyn_cast<linalg::YieldOp>(body.back());
  if (!mul || !add || !yield || yield.getValues().size() != 1 ||
      yield.getValues()[0] != add.getResult())
    return false;
  bool inputs = (isBlockArgument(mul.getLhs(), body, 0) &&
                 isBlockArgument(mul.getRhs(), body, 1)) ||
                (isBlockArgument(mul.getLhs(), body, 1) &&
                 isBlockArgument(mul.getRhs(), body, 0));
  bool accumulator = (add.getLhs() == mul.getResult() &&
                      isBlockArgument(add.getRhs(), body, 2)) ||
                     (add.getRhs() == mul.getResult() &&
                      isBlockArgument(add.getLhs(), body, 2));
  return inputs && accumulator;
}

// Below this many multiply-adds per matrix a loop nest beats packing.
constexpr int64_t kMinKernelWork = 4096;

// The GEMM kernel for this generic, or nothing: f32/f64 throughout, one
// reduction loop, one row and one column loop, any number of batch loops
// (the longest goes to the kernel, the others to `outerBatches`).
// Matrix-vector products and batched dot products (no row or no column
// loop) stay loop nests: they are bound by memory, and the kernel's
// register tile would be mostly padding.
std::optional<std::pair<StringRef, GemmLoops>> matchGemm(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isMultiplyAccumulate(op))
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  for (Value input : op.getDpsInputs())
    if (getElementTypeOrSelf(input.getType()) != element)
      return std::nullopt;
  StringRef kernel = element.isF32()   ? "adjit_gemm_f32"
                     : element.isF64() ? "adjit_gemm_f64"
                                       : StringRef();
  if (kernel.empty())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps, [](AffineMap m) { return m.isProjectedPermutation(); }))
    return std::nullopt;
  GemmLoops loops;
  SmallVector<int64_t> batches;
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    auto uses = [&, d = d](AffineMap m) {
      return m.isFunctionOfDim(d);
    };
    bool inLhs = uses(maps[0]), inRhs = uses(maps[1]), inResult = uses(maps[2]);
    if (iterator == utils::IteratorType::parallel && inLhs && inRhs && inResult) {
      batches.push_back(d);
      continue;
    }
    int64_t *slot;
    if (iterator == utils::IteratorType::reduction)
      slot = inLhs && inRhs && !inResult ? &loops.p : nullptr;
    else if (!inResult)
      slot = nullptr;
    else
      slot = inLhs ? &loops.i : inRhs ? &loops.j : nullptr;
    if (!slot || *slot >= 0)
      return std::nullopt;
    *slot = d;
  }
  if (loops.p < 0 || loops.i < 0 || loops.j < 0)
    return std::nullopt;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  // The kernel splits its batch over threads: it takes the longest one
  // (a dynamic one counts as longest), the last of equals.
  auto longer = [&](int64_t x, int64_t y) {
    return ShapedType::isDynamic(extents[x]) ||
           (!ShapedType::isDynamic(extents[y]) && extents[x] >= extents[y]);
  };
  for (int64_t d : batches)
    if (loops.batch < 0 || longer(d, loops.batch))
      loops.batch = d;
  for (int64_t d : batches)
    if (d != loops.batch)
      loops.outerBatches.push_back(d);
  bool dynamic = false;
  int64_t work = 1;
  for (int64_t d : {loops.i, loops.j, loops.p}) {
    dynamic |= ShapedType::isDynamic(extents[d]);
    work *= extents[d];
  }
  if (!dynamic && work < kMinKernelWork)
    return std::nullopt;
  return std::make_pair(kernel, loops);
}

bool isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

// How an elementwise generic over one shape (identity maps) combines its
// input `product` with its other input, the accumulator: `acc + s * product`
// for a constant s (`acc + p`, `acc - p`, `acc + c * p`, `acc - c * p`, as
// an SGD update `w - lr * dW` is). Returns s, or nothing for another body.
std::optional<double> productScale(linalg::GenericOp op, Value product) {
  Block &body = op.getRegion().front();
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }) ||
      body.getOperations().size() > 3)
    return std::nullopt;
  unsigned p = op.getDpsInputs()[0] == product ? 0 : 1;
  unsigned a = 1 - p;
  Value combined = body.back().getOperand(0);
  // `term` is the product's block argument, or it times a constant.
  auto scaleOf = [&](Value term) -> std::optional<double> {
    if (isBlockArgument(term, body, p))
      return 1.0;
    auto mul = term.getDefiningOp<arith::MulFOp>();
    FloatAttr constant;
    if (!mul || mul->getBlock() != &body)
      return std::nullopt;
    for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())})
      if (isBlockArgument(x, body, p) && c.getParentBlock() != &body &&
          matchPattern(c, m_Constant(&constant)))
        return constant.getValueAsDouble();
    return std::nullopt;
  };
  if (auto add = combined.getDefiningOp<arith::AddFOp>(); add && add->getBlock() == &body) {
    if (isBlockArgument(add.getLhs(), body, a))
      return scaleOf(add.getRhs());
    if (isBlockArgument(add.getRhs(), body, a))
      return scaleOf(add.getLhs());
  }
  if (auto sub = combined.getDefiningOp<arith::SubFOp>();
      sub && sub->getBlock() == &body && isBlockArgument(sub.getLhs(), body, a))
    if (std::optional<double> s = scaleOf(sub.getRhs()))
      return -*s;
  return std::nullopt;
}

// `operand * scale`, elementwise, computed before `before`.
Value scaled(OpBuilder &b, Operation *before, Value operand, double scale) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(before);
  auto type = cast<RankedTensorType>(operand.getType());
  Location loc = before->getLoc();
  Value factor = b.create<arith::ConstantOp>(loc, b.getFloatAttr(type.getElementType(), scale));
  Value empty = b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(), utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(loc, type, operand, empty, ArrayRef{identity, identity}, parallel,
                                 [&](OpBuilder &nested, Location loc, ValueRange arguments) {
                                   nested.create<linalg::YieldOp>(
                                       loc, nested.create<arith::MulFOp>(loc, arguments[0], factor)
                                                .getResult());
                                 })
      .getResult(0);
}

// `acc + s * (A B)` where the product starts from zeros becomes the product
// accumulated onto acc, the smaller operand scaled by s first: the kernel
// adds as it stores, with no pass over the sum and no buffer for the
// product. (A loop's weight-gradient sums: acc is the loop's carry, which
// then updates in place; an SGD update: acc is the weight, updated in place
// when it is donated.)
void accumulateInPlace(linalg::GenericOp gemm) {
  Value product = gemm->getResult(0);
  if (!product.hasOneUse() || !isZeroFill(gemm.getDpsInits()[0]))
    return;
  auto sum = dyn_cast<linalg::GenericOp>(*product.getUsers().begin());
  std::optional<double> scale = sum ? productScale(sum, product) : std::nullopt;
  if (!scale)
    return;
  Value acc = sum.getDpsInputs()[0] == product ? sum.getDpsInputs()[1] : sum.getDpsInputs()[0];
  if (acc.getType() != product.getType() || acc == product)
    return;
  // acc may be computed after the product (a backward pass that recomputes
  // a value between them): the GEMM then moves down to its only user.
  if (!DominanceInfo().properlyDominates(acc, gemm)) {
    if (sum->getBlock() != gemm->getBlock())
      return;
    gemm->moveBefore(sum);
  }
  if (*scale != 1.0) {
    auto elements = [](Value v) { return cast<ShapedType>(v.getType()).getNumElements(); };
    unsigned smaller = elements(gemm.getDpsInputs()[0]) <= elements(gemm.getDpsInputs()[1]) ? 0 : 1;
    OpBuilder b(gemm);
    gemm->setOperand(smaller, scaled(b, gemm, gemm.getDpsInputs()[smaller], *scale));
  }
  gemm.getDpsInitsMutable()[0].set(acc);
  sum->getResult(0).replaceAllUsesWith(product);
  sum->erase();
}

// A contraction in a loop whose B operand is the same in every iteration
// (a weight) but stored transposed for it (dy W^T in an RNN's backward)
// would repack B in every iteration: B is transposed once before the loop,
// and the kernel reads its rows in place.
void transposeInvariantOperandOnce(linalg::GenericOp gemm, const GemmLoops &loops) {
  Value b = gemm.getDpsInputs()[1];
  auto type = dyn_cast<RankedTensorType>(b.getType());
  AffineMap map = gemm.getIndexingMapsArray()[1];
  if (!type || type.getRank() != 2 || loops.batch >= 0 || map.getNumResults() != 2 ||
      map.getResult(0) != getAffineDimExpr(loops.j, gemm.getContext()) ||
      map.getResult(1) != getAffineDimExpr(loops.p, gemm.getContext()))
    return;
  // The outermost enclosing loop that b is defined outside of.
  Operation *outside = nullptr;
  for (Operation *loop = gemm->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
    if (loop->isAncestor(b.getParentBlock()->getParentOp()))
      break;
    outside = loop;
  }
  if (!outside)
    return;
  OpBuilder builder(outside);
  Location loc = gemm.getLoc();
  auto transposedType = RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                                              type.getElementType());
  Value empty = builder.create<tensor::EmptyOp>(loc, transposedType.getShape(),
                                                transposedType.getElementType());
  Value transposed = builder.create<linalg::TransposeOp>(loc, b, empty, ArrayRef<int64_t>{1, 0})
                         ->getResult(0);
  SmallVector<AffineMap> maps = gemm.getIndexingMapsArray();
  maps[1] = AffineMap::get(map.getNumDims(), 0, {map.getResult(1), map.getResult(0)},
                           gemm.getContext());
  gemm.setIndexingMapsAttr(builder.getAffineMapArrayAttr(maps));
  gemm->setOperand(1, transposed);
}

struct SelectKernelsPass : adjit::impl::SelectKernelsBase<SelectKernelsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, GemmLoops>> selected;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (auto gemm = matchGemm(op)) {
        op.setLibraryCallAttr(StringAttr::get(op.getContext(), gemm->first));
        selected.emplace_back(op, gemm->second);
      }
    });
    for (auto [op, loops] : selected) {
      if (!op.hasPureTensorSemantics())
        continue;
      transposeInvariantOperandOnce(op, loops);
      accumulateInPlace(op);
    }
  }
};

struct CallBuilder {
  OpBuilder &b;
  Location loc;
  // The loops around the call for the batch loops the kernel does not take:
  // (loop of the generic, induction variable).
  SmallVector<std::pair<int64_t, Value>, 2> outerIndices;

  Value i64(Value index) {
    return b.create<arith::IndexCastOp>(loc, b.getI64Type(), index);
  }

  // Appends where an operand's data starts (at the outer batch indices)
  // and its stride along each of `loops` (0 for an absent loop or one the
  // operand does not vary along).
  void appendOperand(SmallVector<Value> &arguments, linalg::GenericOp op,
                     OpOperand &operand, ArrayRef<int64_t> loops) {
    Value memref = operand.get();
    auto metadata = b.create<memref::ExtractStridedMetadataOp>(loc, memref);
    Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, memref);
    AffineMap map = op.getMatchingIndexingMap(&operand);
    Value offset = metadata.getOffset();
    for (auto [loop, index] : outerIndices)
      if (std::optional<unsigned> position = map.getResultPosition(b.getAffineDimExpr(loop)))
        offset = b.create<arith::AddIOp>(
            loc, offset, b.create<arith::MulIOp>(loc, index, metadata.getStrides()[*position]));
    int64_t bytes = cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8;
    Value offsetBytes =
        b.create<arith::MulIOp>(loc, offset, b.create<arith::ConstantIndexOp>(loc, bytes));
    arguments.push_back(i64(b.create<arith::AddIOp>(loc, base, offsetBytes)));
    for (int64_t loop : loops) {
      std::optional<unsigned> position =
          loop < 0 ? std::nullopt
                   : map.getResultPosition(b.getAffineDimExpr(loop));
      arguments.push_back(position ? i64(metadata.getStrides()[*position])
                                   : b.create<arith::ConstantIntOp>(loc, 0, 64));
    }
  }

  // The trip count of loop `d`, read off an operand indexed by it (1 for an
  // absent batch loop).
  Value extent(linalg::GenericOp op, int64_t d) {
    if (d < 0)
      return b.create<arith::ConstantIntOp>(loc, 1, 64);
    for (OpOperand &operand : op->getOpOperands())
      if (std::optional<unsigned> position =
              op.getMatchingIndexingMap(&operand).getResultPosition(b.getAffineDimExpr(d)))
        return i64(b.create<memref::DimOp>(loc, operand.get(), *position));
    llvm_unreachable("every loop of a contraction indexes an operand");
  }
};

func::FuncOp declareKernel(ModuleOp module, StringRef name) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  SmallVector<Type> arguments(17, b.getI64Type());
  auto function = b.create<func::FuncOp>(module.getLoc(), name,
                                         b.getFunctionType(arguments, {}));
  function.setPrivate();
  return function;
}

// Whether `buffer` only ever holds zeros: an allocation (or arena buffer)
// whose only writers are zero fills (bufferization copies such a shared
// zero tensor into each contraction's output).
bool holdsOnlyZeros(Value buffer) {
  Operation *allocation = buffer.getDefiningOp();
  if (!allocation || !hasSingleEffect<MemoryEffects::Allocate>(allocation, buffer))
    return false;
  bool filled = false;
  for (Operation *user : buffer.getUsers()) {
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (!matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        return false;
      filled = true;
    } else if (auto copy = dyn_cast<linalg::CopyOp>(user)) {
      if (copy.getOutputs()[0] == buffer)
        return false;
    } else if (!hasSingleEffect<MemoryEffects::Free>(user, buffer)) {
      return false;
    }
  }
  return filled;
}

struct ContractionsToCallsPass
    : adjit::impl::ContractionsToCallsBase<ContractionsToCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::GenericOp> selected;
    module.walk([&](linalg::GenericOp op) {
      std::optional<StringRef> call = op.getLibraryCall();
      if (call && call->starts_with(kGemmPrefix))
        selected.push_back(op);
    });
    for (linalg::GenericOp op : selected) {
      auto gemm = matchGemm(op);
      if (!gemm || op.getNumResults() != 0) {
        op.emitOpError("is marked for the runtime's GEMM kernel but is not a "
                       "buffer contraction it serves");
        return signalPassFailure();
      }
      auto [kernel, loops] = *gemm;
      bool overwrite = adjit::absorbZeroFill(op);
      OpBuilder b(op);
      CallBuilder call{b, op.getLoc(), {}};
      // One call per element of the outer batch loops, each at its offsets.
      for (int64_t d : loops.outerBatches) {
        Value zero = b.create<arith::ConstantIndexOp>(op.getLoc(), 0);
        Value one = b.create<arith::ConstantIndexOp>(op.getLoc(), 1);
        Value extent = b.create<arith::IndexCastOp>(op.getLoc(), b.getIndexType(),
                                                    call.extent(op, d));
        auto loop = b.create<scf::ForOp>(op.getLoc(), zero, extent, one);
        b.setInsertionPoint(loop.getBody()->getTerminator());
        call.outerIndices.emplace_back(d, loop.getInductionVar());
      }
      SmallVector<Value> arguments{call.extent(op, loops.batch),
                                   call.extent(op, loops.i),
                                   call.extent(op, loops.j),
                                   call.extent(op, loops.p)};
      call.appendOperand(arguments, op, op->getOpOperand(0), {loops.batch, loops.i, loops.p});
      call.appendOperand(arguments, op, op->getOpOperand(1), {loops.batch, loops.p, loops.j});
      call.appendOperand(arguments, op, op->getOpOperand(2), {loops.batch, loops.i, loops.j});
      arguments.push_back(
          b.create<arith::ConstantIntOp>(op.getLoc(), overwrite ? 0 : 1, 64));
      b.create<func::CallOp>(op.getLoc(), declareKernel(module, kernel), arguments);
      op->erase();
    }
  }
};

} // namespace

std::optional<adjit::LibraryGemm> adjit::matchLibraryGemm(linalg::GenericOp op) {
  std::optional<StringRef> call = op.getLibraryCall();
  if (!call || !call->starts_with(kGemmPrefix) || !op.hasPureBufferSemantics())
    return std::nullopt;
  auto gemm = matchGemm(op);
  if (!gemm || !gemm->second.outerBatches.empty())
    return std::nullopt;
  GemmLoops loops = gemm->second;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic))
    return std::nullopt;
  auto extent = [&](int64_t loop) { return loop < 0 ? int64_t{1} : extents[loop]; };
  LibraryGemm result{extent(loops.batch), extent(loops.i), extent(loops.j), extent(loops.p),
                     {}, {}, 0, false};
  const int64_t operandLoops[3][3] = {{loops.batch, loops.i, loops.p},
                                      {loops.batch, loops.p, loops.j},
                                      {loops.batch, loops.i, loops.j}};
  for (unsigned o = 0; o < 3; ++o) {
    OpOperand &operand = op->getOpOperand(o);
    auto type = cast<MemRefType>(operand.get().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(getStridesAndOffset(type, strides, offset)) || ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return std::nullopt;
    result.offsets[o] = offset;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (unsigned l = 0; l < 3; ++l) {
      int64_t loop = operandLoops[o][l];
      std::optional<unsigned> position =
          loop < 0 ? std::nullopt : map.getResultPosition(getAffineDimExpr(loop, op.getContext()));
      // A loop of extent 1 has no stride that matters; 1 keeps the layout
      // rules below simple.
      result.strides[o][l] = !position ? 0 : extent(loop) == 1 ? 1 : strides[*position];
    }
  }
  auto contiguous = [](const std::array<int64_t, 3> &s) { return s[1] == 1 || s[2] == 1; };
  if (!contiguous(result.strides[0]) || !contiguous(result.strides[1]) ||
      result.strides[2][2] != 1)
    return std::nullopt;
  result.elementBits = cast<MemRefType>(op->getOperand(2).getType()).getElementTypeBitWidth();
  result.overwrites = call->ends_with(kOverwriteSuffix);
  return result;
}

bool adjit::absorbZeroFill(linalg::GenericOp op) {
  // An operand read from the output buffer would read what the fill wrote.
  if (llvm::is_contained(op.getDpsInputs(), op.getDpsInits()[0]))
    return false;
  Operation *previous = op->getPrevNode();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(previous)) {
    if (fill.getOutputs()[0] != op.getDpsInits()[0] ||
        !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
      return false;
    fill->erase();
    return true;
  }
  auto copy = dyn_cast_or_null<linalg::CopyOp>(previous);
  if (!copy || copy.getOutputs()[0] != op.getDpsInits()[0] ||
      !holdsOnlyZeros(copy.getInputs()[0]))
    return false;
  copy->erase();
  return true;
}

bool adjit::absorbZeroFillIntoLibraryGemm(linalg::GenericOp op) {
  std::optional<StringRef> call = op.getLibraryCall();
  if (!call || call->ends_with(kOverwriteSuffix) || !absorbZeroFill(op))
    return false;
  op.setLibraryCallAttr(StringAttr::get(op.getContext(), *call + kOverwriteSuffix));
  return true;
}
