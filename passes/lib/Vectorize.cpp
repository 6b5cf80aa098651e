// Vector code from MLIR for the innermost loop of generics (CPU). The policy
// is one rule: the innermost loop runs in vectors of two registers of the
// target's width (four where a long row waits on long dependency chains
// with few values live, below), everything that does not depend on its
// index runs once per outer iteration as scalars, and a reduction over it
// accumulates lane-wise and is reduced across lanes once. The outer loops
// stay scalar `scf.for` loops: adjit-tile-and-fuse-rows has already sized
// them for the caches.

#include "ContiguousTensors.h"
#include "VectorMathLibrary.h"

#include "adjit/Passes/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/bit.h"
#include "llvm/TargetParser/Host.h"

#include <numeric>

namespace mlir::adjit {
#define GEN_PASS_DEF_VECTORIZE
#include "adjit/Passes/Passes.h.inc"

int64_t hostVectorBits() {
  static const int64_t bits = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    if (features.lookup("avx512f"))
      return 512;
    return features.lookup("avx") ? 256 : 128;
  }();
  return bits;
}

bool hostHasFusedMultiplyAdd() {
  static const bool fma = llvm::sys::getHostCPUFeatures().lookup("fma");
  return fma;
}

bool hostHasAvx512Dq() {
  static const bool dq = llvm::sys::getHostCPUFeatures().lookup("avx512dq");
  return dq;
}

bool hostHasAvx2() {
  static const bool avx2 = llvm::sys::getHostCPUFeatures().lookup("avx2");
  return avx2;
}
} // namespace mlir::adjit

using namespace mlir;

namespace {

bool isVectorElementType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= 64;
  return type.isF32() || type.isF64();
}

// The bits an element takes in memory: a bool takes a byte, as adjit's
// tensors of i1 do (adjit-convert-bool-vector-memory-to-llvm loads and
// stores vectors of i1 that way).
int64_t storedBits(Type type) { return std::max<int64_t>(type.getIntOrFloatBitWidth(), 8); }

// Math ops that become vector code below: f32 ones that adjit-approximate-math
// turns into polynomials (sin and cos with a libm path for lanes beyond its
// range), ones that are one vector instruction (or a few) on every target,
// and with a vector math library, those it has. The others are libm calls
// one element at a time: in vector form LLVM would unroll a call per lane,
// spilling the other lanes around each, which is no faster than a loop of
// calls and makes long programs' code (and its compile time) grow far
// faster than the program.
bool lowersToVectorCode(Operation *op, bool vectorMathLibrary) {
  if (vectorMathLibrary && !adjit::vectorMathFunction(op).empty())
    return true;
  bool f32 = getElementTypeOrSelf(op->getResult(0).getType()).isF32();
  bool approximated = adjit::hasF32Polynomial(op);
  bool instruction =
      isa<math::AbsFOp, math::AbsIOp, math::CeilOp, math::CopySignOp, math::FloorOp,
          math::FmaOp, math::RoundEvenOp, math::RoundOp, math::RsqrtOp, math::SqrtOp,
          math::TruncOp, math::CtPopOp, math::CountLeadingZerosOp,
          math::CountTrailingZerosOp>(op);
  return instruction || (f32 && approximated);
}

std::optional<vector::CombiningKind> combiningKind(Operation *op) {
  using Kind = vector::CombiningKind;
  // A float sum or product is only reordered where the program allows it.
  auto ifReassociable = [](auto op, Kind kind) -> std::optional<Kind> {
    if (bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::reassoc))
      return kind;
    return std::nullopt;
  };
  return TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case([&](arith::AddFOp add) { return ifReassociable(add, Kind::ADD); })
      .Case([&](arith::MulFOp mul) { return ifReassociable(mul, Kind::MUL); })
      .Case([](arith::AddIOp) { return Kind::ADD; })
      .Case([](arith::MulIOp) { return Kind::MUL; })
      .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
      .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
      .Case([](arith::MinSIOp) { return Kind::MINSI; })
      .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
      .Case([](arith::MinUIOp) { return Kind::MINUI; })
      .Case([](arith::AndIOp) { return Kind::AND; })
      .Case([](arith::OrIOp) { return Kind::OR; })
      .Case([](arith::XOrIOp) { return Kind::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

// An output that the innermost loop reduces into: its combiner (`out + x`)
// and the op's neutral element, which starts the lanes.
struct InnerReduction {
  Operation *combiner;
  vector::CombiningKind kind;
  TypedAttr neutral;
};

// Each step of the innermost loop works on two registers' worth of lanes:
// independent work for the other while one waits on a long dependency
// chain (a tanh polynomial), without spilling the polynomials' constants.
// Where a step waits on long dependency chains (a reduction's adds, a math
// function's polynomial), four registers keep four chains in flight, if
// each varying value's four copies still fit in the vector registers (at
// most a quarter of them live at once) and the row holds more than one
// step: W3's row sums (its forward -7%) and W1's exp and tanh (6 values
// live: its value+grad -10%); W3's GELU pass (11 live) spilled with four
// (+11%). A loop without such chains is bound by its arithmetic or its
// memory, and four registers do not help it (W2 and W4 within 1%): it
// keeps two, as does W3's last pass, so that adjit-overlap-row-stores can
// still run it inside the GELU pass (with four: +4.6%). Measured on
// AVX-512 (32 registers); AVX2's 16 admit 4 values live.
constexpr int64_t kRegistersPerStep = 2;
// Transposed inputs go through square tiles of at most 16 x 16: a full
// AVX-512 register of f32 per row, 64 shuffles per tile.
constexpr int64_t kMaxTileLanes = 16;
constexpr int64_t kWideRegistersPerStep = 4;

int64_t vectorRegisters(int64_t vectorBits) { return vectorBits >= 512 ? 32 : 16; }

// An argmax-like pair of outputs: the best value and its index, replaced
// together by a candidate when `predicate` (computed by `predicateOps` from
// the candidate and the best value) holds.
struct ArgReduction {
  BlockArgument value, index;
  Value predicate, candidate;
  SmallVector<Operation *> predicateOps;
};

// One generic, analysed: which operands and body values vary along the
// innermost loop, and how each output is produced.
class InnerLoopVectorizer {
public:
  InnerLoopVectorizer(linalg::GenericOp op, int64_t vectorBits, bool vectorMathLibrary)
      : op_(op), vectorMathLibrary_(vectorMathLibrary) {
    ranges_ = op.getStaticLoopRanges();
    inner_ = ranges_.empty() ? 0 : ranges_.size() - 1;
    if (failed(analyse()))
      return;
    int64_t registerLanes = vectorBits / widestElementBits_;
    // Rows shorter than a register reduced along the innermost loop run
    // across rows instead: the loop before it becomes the vector's, and the
    // rows are read in tiles transposed in registers, each lane reducing
    // its own row in order (an argmax over 10 classes).
    unsigned rowLoop = inner_ - 1;
    if ((!reductions_.empty() || !argReductions_.empty()) && ranges_.size() >= 2 &&
        ranges_[inner_] <= registerLanes &&
        op_.getIteratorTypesArray()[rowLoop] == utils::IteratorType::parallel) {
      unsigned reduced = inner_;
      reset();
      inner_ = rowLoop;
      if (succeeded(analyse()) && tileDim_ == reduced) {
        lanes_ = tileLanes(vectorBits / widestElementBits_);
        return;
      }
      reset();
      inner_ = reduced;
      (void)analyse();
    }
    lanes_ = tileDim_ ? tileLanes(registerLanes)
                      : registerLanes * registersPerStep(registerLanes, vectorBits);
    // An arg-reduction's elements past the whole vectors run one at a
    // time: a short row takes fewer lanes instead.
    if (!argReductions_.empty() && ranges_[inner_] < lanes_)
      lanes_ = int64_t(llvm::bit_floor(uint64_t(ranges_[inner_])));
    if (runsShortRowsFlat(registerLanes))
      lanes_ = registerLanes;
  }

  bool applies() const { return !perRow_.empty() || (lanes_ >= 2 && ranges_[inner_] >= 2); }

  void rewrite(RewriterBase &rewriter) {
    rewriter.setInsertionPoint(op_);
    SmallVector<Value> ivs;
    SmallVector<Value> results =
        !perRow_.empty() ? shortRowsFlat(rewriter, op_.getLoc())
        : tileDim_       ? tiledLoops(rewriter, op_.getLoc(), 0, ivs, op_.getDpsInits())
                         : outerLoops(rewriter, op_.getLoc(), 0, ivs, op_.getDpsInits());
    rewriter.replaceOp(op_, results);
  }

private:
  // Elementwise work over rows shorter than a register that reads values
  // once per row (log_softmax's last pass, x - max - log(sum), or points
  // scaled to unit length) would run one partial vector per row. It runs
  // over the rows as one long row instead, in whole registers: groups of
  // `lanes / gcd(lanes, row)` rows fill `row / gcd(lanes, row)` registers
  // exactly, and each register's per-row values are the group's, read as
  // one vector and spread over the register's lanes by a shuffle (a
  // vpermps). Operands read through the identity must be contiguous
  // (bufferization then collapses them into views); the others are read
  // once per row (every loop but the innermost) or are 0-d. Returns
  // whether the generic runs so; `perRow_` then holds the per-row
  // operands' arguments (also those with no use, to mark the mode).
  bool runsShortRowsFlat(int64_t registerLanes) {
    unsigned loops = ranges_.size();
    int64_t row = ranges_[inner_];
    if (tileDim_ || !reductions_.empty() || !argReductions_.empty() || loops < 2 ||
        row >= registerLanes || op_.hasIndexSemantics() ||
        op_.getNumParallelLoops() != loops || !op_.getBlock()->getOps<tensor::ExtractOp>().empty())
      return false;
    if (rowsOfShortRows() % (registerLanes / std::gcd(registerLanes, row)) != 0)
      return false;
    SmallVector<BlockArgument> perRow;
    for (OpOperand &operand : op_->getOpOperands()) {
      AffineMap map = op_.getMatchingIndexingMap(&operand);
      BlockArgument argument = op_.getMatchingBlockArgument(&operand);
      if (!isVectorElementType(argument.getType()))
        return false;
      if (map.getNumResults() == 0 && op_.isDpsInput(&operand))
        continue;
      bool whole = map.isIdentity();
      bool onceARow = op_.isDpsInput(&operand) && map.getNumResults() == loops - 1 &&
                      map.isProjectedPermutation() &&
                      llvm::all_of(llvm::enumerate(map.getResults()), [](auto entry) {
                        return cast<AffineDimExpr>(entry.value()).getPosition() == entry.index();
                      });
      if ((!whole && !onceARow) || !adjit::isContiguous(operand.get()) ||
          (!op_.isDpsInput(&operand) && !argument.use_empty()))
        return false;
      if (onceARow)
        perRow.push_back(argument);
    }
    // A generic reading nothing once a row is left to adjit-flatten-short-rows
    // (which ran before tiling); one that no such shuffle would serve keeps
    // its row loops.
    if (perRow.empty())
      return false;
    perRow_.insert(perRow.begin(), perRow.end());
    return true;
  }

  // The rows of the short rows: every loop but the innermost, together.
  int64_t rowsOfShortRows() const {
    int64_t rows = 1;
    for (unsigned d = 0; d < inner_; ++d)
      rows *= ranges_[d];
    return rows;
  }

  // `tensor` as one dimension, and back to `type`.
  static SmallVector<ReassociationIndices> allInOne(int64_t rank) {
    return {llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  }
  static Value collapsed(OpBuilder &b, Location loc, Value tensor) {
    int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
    return rank == 1 ? tensor : b.create<tensor::CollapseShapeOp>(loc, tensor, allInOne(rank));
  }
  static Value expanded(OpBuilder &b, Location loc, Value flat, RankedTensorType type) {
    return type.getRank() == 1 ? flat
                               : b.create<tensor::ExpandShapeOp>(loc, type, flat, allInOne(type.getRank()));
  }

  SmallVector<Value> shortRowsFlat(OpBuilder &b, Location loc) {
    int64_t row = ranges_[inner_], lanes = lanes_, rows = rowsOfShortRows();
    int64_t common = std::gcd(lanes, row);
    int64_t groupRows = lanes / common, groupRegisters = row / common;
    // Operands and outputs as one long row (per-row ones as one row of
    // rows); 0-d inputs as their element.
    IRMapping uniform;
    DenseMap<BlockArgument, Value> flat;
    for (OpOperand &operand : op_->getOpOperands()) {
      BlockArgument argument = op_.getMatchingBlockArgument(&operand);
      if (op_.getMatchingIndexingMap(&operand).getNumResults() == 0) {
        Value source = operand.get();
        uniform.map(argument, isa<RankedTensorType>(source.getType())
                                  ? b.create<tensor::ExtractOp>(loc, source, ValueRange{}).getResult()
                                  : source);
        continue;
      }
      flat[argument] = collapsed(b, loc, operand.get());
    }
    // The body's values that vary from element to element.
    DenseSet<Value> varying;
    for (auto &[argument, tensor] : flat)
      varying.insert(argument);
    for (Operation &inner : op_.getBlock()->without_terminator()) {
      if (llvm::none_of(inner.getOperands(), [&](Value v) { return varying.contains(v); })) {
        b.clone(inner, uniform);
        continue;
      }
      varying.insert(inner.getResults().begin(), inner.getResults().end());
    }
    SmallVector<Value> outputs = llvm::map_to_vector(
        op_.getRegionOutputArgs(), [&](BlockArgument argument) { return flat.lookup(argument); });
    auto yield = cast<linalg::YieldOp>(op_.getBlock()->getTerminator());
    SmallVector<Value> results = forLoop(
        b, loc, 0, rows, groupRows, outputs,
        [&](OpBuilder &b, Location loc, Value firstRow, ValueRange carried) {
          // Each per-row operand's values for the group's rows.
          DenseMap<BlockArgument, Value> groupValues;
          for (BlockArgument argument : perRow_)
            groupValues[argument] = b.create<vector::TransferReadOp>(
                loc, VectorType::get({groupRows}, argument.getType()), flat.lookup(argument),
                ValueRange{firstRow}, ArrayRef<bool>{true});
          Value start = b.create<arith::MulIOp>(loc, firstRow, b.create<arith::ConstantIndexOp>(loc, row));
          SmallVector<Value> next(carried);
          for (int64_t r = 0; r < groupRegisters; ++r) {
            IRMapping values = uniform;
            Value at = b.create<arith::AddIOp>(loc, start, b.create<arith::ConstantIndexOp>(loc, r * lanes));
            for (OpOperand *input : op_.getDpsInputOperands()) {
              BlockArgument argument = op_.getMatchingBlockArgument(input);
              if (!flat.contains(argument))
                continue;
              if (perRow_.contains(argument)) {
                // Lane l holds element r * lanes + l of the group, of row
                // (r * lanes + l) / row.
                SmallVector<int64_t> spread = llvm::map_to_vector(
                    llvm::seq<int64_t>(0, lanes), [&](int64_t l) { return (r * lanes + l) / row; });
                Value group = groupValues.lookup(argument);
                values.map(argument, b.create<vector::ShuffleOp>(loc, group, group, spread).getResult());
                continue;
              }
              // An input that is also an output's initial value (both read
              // through the identity) is read from the carried output, as
              // sourceOf does: not yet overwritten there.
              Value source = flat.lookup(argument);
              for (OpOperand &init : op_.getDpsInitsMutable())
                if (init.get() == input->get())
                  source = next[outputIndex(init)];
              values.map(argument, b.create<vector::TransferReadOp>(
                                       loc, VectorType::get({lanes}, argument.getType()), source,
                                       ValueRange{at}, ArrayRef<bool>{true}));
            }
            for (Operation &inner : op_.getBlock()->without_terminator())
              if (varying.contains(inner.getResult(0)))
                cloneOnLanes(b, loc, inner, values, lanes);
            for (unsigned i = 0; i < next.size(); ++i)
              next[i] = b.create<vector::TransferWriteOp>(
                             loc, vectorOfLanes(b, loc, values, yield.getOperand(i), lanes), next[i],
                             ValueRange{at}, ArrayRef<bool>{true})
                            .getResult();
          }
          return next;
        });
    // Back to the outputs' shapes.
    for (auto [i, output] : llvm::enumerate(op_.getDpsInits()))
      results[i] = expanded(b, loc, results[i], cast<RankedTensorType>(output.getType()));
    return results;
  }

  // The most varying values live at once in the body, in its order: a
  // value from its definition (an operand from its first use) to its last
  // use, a reduction's accumulator throughout.
  int64_t maxLiveVarying() {
    Block &body = *op_.getBlock();
    llvm::DenseMap<Value, std::pair<int64_t, int64_t>> spans;
    int64_t position = 0;
    auto touch = [&](Value v) {
      if (!varying_.contains(v))
        return;
      spans.try_emplace(v, position, position).first->second.second = position;
    };
    for (Operation &inner : body) {
      for (Value operand : inner.getOperands())
        touch(operand);
      for (Value result : inner.getResults())
        touch(result);
      ++position;
    }
    for (auto &entry : reductions_)
      spans[entry.first] = {0, position};
    // +1 where a span starts, -1 after it ends; the running sum is the
    // number live.
    SmallVector<int64_t> change(position + 2, 0);
    for (auto &entry : spans) {
      ++change[entry.second.first];
      --change[entry.second.second + 1];
    }
    int64_t live = 0, most = 0;
    for (int64_t delta : change)
      most = std::max(most, live += delta);
    return most;
  }

  // Whether a step waits on long dependency chains: a reduction's
  // accumulator, or a math function's polynomial (exp, tanh, log, ...).
  bool hasLongChains() {
    if (!reductions_.empty() || !argReductions_.empty())
      return true;
    return llvm::any_of(op_.getBlock()->without_terminator(), [](Operation &inner) {
      return isa<math::MathDialect>(inner.getDialect()) &&
             !isa<math::AbsFOp, math::AbsIOp, math::CopySignOp, math::FmaOp>(inner);
    });
  }

  int64_t registersPerStep(int64_t registerLanes, int64_t vectorBits) {
    bool longRow = ranges_[inner_] >= 2 * registerLanes * kWideRegistersPerStep;
    if (!longRow || !hasLongChains())
      return kRegistersPerStep;
    bool fits = kWideRegistersPerStep * maxLiveVarying() <= vectorRegisters(vectorBits);
    return fits ? kWideRegistersPerStep : kRegistersPerStep;
  }

  // The side of a square tile: a register's lanes, at most 16, and a power
  // of two no larger than either loop of the tile.
  int64_t tileLanes(int64_t registerLanes) const {
    int64_t lanes = std::min({registerLanes, kMaxTileLanes, ranges_[inner_]});
    return lanes < 2 ? 0 : int64_t(llvm::bit_floor(uint64_t(lanes)));
  }

  void reset() {
    varying_.clear();
    laneIndexValues_.clear();
    reductions_.clear();
    argReductions_.clear();
    argReductionOutputs_.clear();
    transposed_.clear();
    tileDim_.reset();
    widestElementBits_ = 8;
  }

  // Whether `operand`, of a type vector arithmetic does not take (f16,
  // bf16), is only moved or widened: an input the body yields as it is or
  // extends (to f32, as half-precision math computes), or an output that
  // such an input is yielded to. Its vectors are only read, shuffled,
  // extended and written (a transpose, an argmax of bf16).
  bool isMovedOnly(OpOperand &operand) {
    BlockArgument argument = op_.getMatchingBlockArgument(&operand);
    if (!isa<Float16Type, BFloat16Type>(argument.getType()))
      return false;
    Operation *yield = op_.getBlock()->getTerminator();
    if (op_.isDpsInput(&operand))
      return llvm::all_of(argument.getUsers(),
                          [&](Operation *user) { return user == yield || isa<arith::ExtFOp>(user); });
    Value yielded = yield->getOperand(outputIndex(operand));
    auto source = dyn_cast<BlockArgument>(yielded);
    return argument.use_empty() &&
           ((source && source.getOwner() == op_.getBlock()) || isNarrowedResult(yielded));
  }

  // Whether `v` is f32 math narrowed to f16 or bf16 (each op of half
  // precision rounds) for an output or to be widened again by the next op.
  bool isNarrowedResult(Value v) {
    auto narrow = v.getDefiningOp<arith::TruncFOp>();
    Operation *yield = op_.getBlock()->getTerminator();
    return narrow && narrow->getBlock() == op_.getBlock() &&
           isa<Float16Type, BFloat16Type>(v.getType()) &&
           llvm::all_of(v.getUsers(), [&](Operation *user) {
             return user == yield || isa<arith::ExtFOp>(user);
           });
  }

  // The position of an output operand among the outputs.
  unsigned outputIndex(OpOperand &output) {
    return output.getOperandNumber() - op_.getNumDpsInputs();
  }

  // Whether `map` reads contiguous elements along the innermost loop: it
  // names that loop last and nowhere else.
  bool readsAlongInner(AffineMap map) const {
    return map.getNumResults() > 0 && map.getResults().back() == getAffineDimExpr(inner_, map.getContext());
  }

  LogicalResult analyse() {
    if (!op_.hasPureTensorSemantics() || op_.getLibraryCallAttr() || ranges_.empty() ||
        llvm::any_of(ranges_, ShapedType::isDynamic))
      return failure();
    Block &body = *op_.getBlock();
    for (OpOperand &operand : op_->getOpOperands()) {
      AffineMap map = op_.getMatchingIndexingMap(&operand);
      if (!map.isProjectedPermutation())
        return failure();
      bool usesInner = map.isFunctionOfDim(inner_);
      BlockArgument argument = op_.getMatchingBlockArgument(&operand);
      if (usesInner && !readsAlongInner(map)) {
        // An input contiguous along another loop (a transpose) is read in
        // square tiles transposed in registers; anything else would be a
        // gather.
        unsigned along = cast<AffineDimExpr>(map.getResults().back()).getPosition();
        if (!op_.isDpsInput(&operand) || (tileDim_ && *tileDim_ != along))
          return failure();
        tileDim_ = along;
        transposed_.insert(argument);
      }
      if (!isVectorElementType(argument.getType()) && !isMovedOnly(operand))
        return failure();
      widestElementBits_ = std::max(widestElementBits_, storedBits(argument.getType()));
      if (op_.isDpsInput(&operand)) {
        if (usesInner)
          varying_.insert(argument);
        continue;
      }
      if (usesInner) {
        if (!argument.use_empty())
          varying_.insert(argument);
        continue;
      }
      // An output without the innermost loop accumulates over it.
      if (!argReductionOutputs_.contains(argument) && failed(analyseReduction(operand, argument)) &&
          failed(analyseArgReduction(operand, argument)))
        return failure();
      varying_.insert(argument);
    }
    // An arg-reduction's outputs are its only ones (its lanes are combined
    // apart from the other outputs).
    if (!argReductions_.empty() && 2 * argReductions_.size() != op_.getNumDpsInits())
      return failure();
    // Tiles run along tileDim_ in order: a loop reduced over must not index
    // an output (each output element is then updated in that order).
    if (tileDim_ && (!reductions_.empty() || !argReductions_.empty() ||
                     (op_.getIteratorTypesArray()[*tileDim_] != utils::IteratorType::parallel &&
                      llvm::any_of(op_.getDpsInitsMutable(), [&](OpOperand &output) {
                        return op_.getMatchingIndexingMap(&output).isFunctionOfDim(*tileDim_);
                      }))))
      return failure();
    for (Operation &inner : body.without_terminator()) {
      // An index varies along the innermost loop only if it is that loop's.
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        if (index.getDim() == inner_) {
          varying_.insert(index.getResult());
          laneIndexValues_.insert(index.getResult());
        }
        continue;
      }
      // Casts of the innermost index (index -> i64 -> i32) give the lanes'
      // indices in the last type directly, in its lanes' width.
      if (isa<arith::IndexCastOp, arith::TruncIOp>(inner) &&
          laneIndexValues_.contains(inner.getOperand(0))) {
        varying_.insert(inner.getResult(0));
        laneIndexValues_.insert(inner.getResult(0));
        continue;
      }
      // An element of a tensor from above: a gather where its last index
      // varies along the innermost loop (take along the last axis).
      if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
        ValueRange indices = extract.getIndices();
        if (extract.getTensor().getParentBlock() == op_.getBlock() || indices.empty() ||
            !isVectorElementType(extract.getType()) ||
            llvm::any_of(indices.drop_back(), [&](Value v) { return varying_.contains(v); }))
          return failure();
        widestElementBits_ = std::max(widestElementBits_, storedBits(extract.getType()));
        if (varying_.contains(indices.back())) {
          // A gather of bools would read them bit-packed, which
          // adjit-bool-vector-memory-to-llvm refuses: scalar code takes them.
          if (extract.getType().isInteger(1))
            return failure();
          varying_.insert(extract.getResult());
        }
        continue;
      }
      bool mappable = isa<arith::ArithDialect>(inner.getDialect()) ||
                      (isa<math::MathDialect>(inner.getDialect()) &&
                       lowersToVectorCode(&inner, vectorMathLibrary_));
      if (!mappable || !OpTrait::hasElementwiseMappableTraits(&inner) ||
          inner.getNumRegions() != 0)
        return failure();
      for (Value result : inner.getResults()) {
        // An index the body computes is a gather's offset only.
        if (result.getType().isIndex() && llvm::all_of(result.getUsers(), [](Operation *user) {
              return isa<tensor::ExtractOp>(user);
            }))
          continue;
        if (!isVectorElementType(result.getType()) && !isNarrowedResult(result))
          return failure();
        widestElementBits_ = std::max(widestElementBits_, storedBits(result.getType()));
      }
      if (llvm::any_of(inner.getOperands(), [&](Value v) { return varying_.contains(v); }))
        for (Value result : inner.getResults())
          varying_.insert(result);
    }
    // The lanes' indices as the body reads them count for the width.
    for (Value index : laneIndexValues_)
      if (isa<IntegerType>(index.getType()) && isReadBeyondCasts(index))
        widestElementBits_ = std::max(widestElementBits_, storedBits(index.getType()));
    return success();
  }

  LogicalResult analyseReduction(OpOperand &output, BlockArgument argument) {
    auto yield = cast<linalg::YieldOp>(op_.getBlock()->getTerminator());
    Value yielded = yield.getOperand(outputIndex(output));
    Operation *combiner = yielded.getDefiningOp();
    if (!combiner || combiner->getNumOperands() != 2 || !argument.hasOneUse() ||
        *argument.getUsers().begin() != combiner ||
        combiner->getOperand(0) == combiner->getOperand(1))
      return failure();
    std::optional<vector::CombiningKind> kind = combiningKind(combiner);
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
    if (!kind || !neutral)
      return failure();
    // A NaN-skipping max or min (adjit.reduce ignores_nan) starts its lanes
    // at -inf (+inf), not NaN: its result for NaNs alone may be either,
    // and an accumulator that is never NaN takes one vmaxps per step
    // (adjit-avx512-min-max) instead of LLVM's three.
    if (isa<arith::MaxNumFOp, arith::MinNumFOp>(combiner)) {
      auto type = cast<FloatType>(neutral->getType());
      *neutral = FloatAttr::get(type, APFloat::getInf(type.getFloatSemantics(),
                                                      isa<arith::MaxNumFOp>(combiner)));
    }
    reductions_[argument] = InnerReduction{combiner, *kind, *neutral};
    return success();
  }

  // An argmax-like pair of outputs (best value, its index) that a
  // predicate updates together: both yield `select(better, candidate,
  // best)` with one `better` computed from the candidate and the best value
  // alone, and the index's candidate does not read either output.
  LogicalResult analyseArgReduction(OpOperand &output, BlockArgument argument) {
    auto yield = cast<linalg::YieldOp>(op_.getBlock()->getTerminator());
    auto select = yield.getOperand(outputIndex(output)).getDefiningOp<arith::SelectOp>();
    if (!select || select.getFalseValue() != argument)
      return failure();
    // The partner: another output updated by a select on the same predicate.
    for (OpOperand &other : op_.getDpsInitsMutable()) {
      BlockArgument partner = op_.getMatchingBlockArgument(&other);
      auto partnerSelect = yield.getOperand(outputIndex(other)).getDefiningOp<arith::SelectOp>();
      if (partner == argument || !partnerSelect || partnerSelect.getFalseValue() != partner ||
          partnerSelect.getCondition() != select.getCondition() ||
          op_.getMatchingIndexingMap(&other) != op_.getMatchingIndexingMap(&output))
        continue;
      // The value is the one the predicate reads; the index has one use.
      bool argumentIsValue = !argument.hasOneUse();
      BlockArgument value = argumentIsValue ? argument : partner;
      BlockArgument index = argumentIsValue ? partner : argument;
      arith::SelectOp valueSelect = argumentIsValue ? select : partnerSelect;
      arith::SelectOp indexSelect = argumentIsValue ? partnerSelect : select;
      if (!index.hasOneUse() || !isa<IntegerType>(index.getType()))
        continue;
      ArgReduction reduction{value, index, select.getCondition(), valueSelect.getTrueValue(), {}};
      if (!collectPredicate(reduction) || reaches(indexSelect.getTrueValue(), {value, index}))
        continue;
      // The value's other uses are the predicate's.
      if (llvm::any_of(value.getUsers(), [&](Operation *user) {
            return user != valueSelect && !llvm::is_contained(reduction.predicateOps, user);
          }))
        continue;
      argReductionOutputs_.insert(value);
      argReductionOutputs_.insert(index);
      argReductions_.push_back(std::move(reduction));
      varying_.insert(partner);
      return success();
    }
    return failure();
  }

  // The body's ops that compute the predicate from the candidate and the
  // best value (and constants), in body order; false if it reads anything
  // else of the body.
  bool collectPredicate(ArgReduction &reduction) {
    llvm::SetVector<Operation *> ops;
    SmallVector<Value> worklist{reduction.predicate};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (v == reduction.candidate || v == reduction.value)
        continue;
      if (isa<BlockArgument>(v))
        return false;
      Operation *producer = v.getDefiningOp();
      if (producer->getBlock() != op_.getBlock())
        continue;  // from above the generic
      if (isa<linalg::IndexOp>(producer) || producer->getNumRegions() != 0)
        return false;
      if (ops.insert(producer))
        llvm::append_range(worklist, producer->getOperands());
    }
    reduction.predicateOps.assign(ops.begin(), ops.end());
    llvm::sort(reduction.predicateOps,
               [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    return true;
  }

  // Whether `v` is computed (in the body) from any of `sources`.
  bool reaches(Value v, ArrayRef<BlockArgument> sources) {
    SmallVector<Value> worklist{v};
    llvm::DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value next = worklist.pop_back_val();
      if (!seen.insert(next).second)
        continue;
      if (auto argument = dyn_cast<BlockArgument>(next)) {
        if (llvm::is_contained(sources, argument))
          return true;
        continue;
      }
      Operation *producer = next.getDefiningOp();
      if (producer->getBlock() == op_.getBlock())
        llvm::append_range(worklist, producer->getOperands());
    }
    return false;
  }

  // The loops over the outer dimensions, each carrying the outputs.
  SmallVector<Value> outerLoops(OpBuilder &b, Location loc, unsigned dim, SmallVectorImpl<Value> &ivs,
                                ValueRange outputs) {
    if (dim == inner_)
      return innerLoop(b, loc, ivs, outputs);
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    Value end = b.create<arith::ConstantIndexOp>(loc, ranges_[dim]);
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    auto loop = b.create<scf::ForOp>(
        loc, zero, end, one, outputs, [&](OpBuilder &nested, Location loc, Value iv, ValueRange carried) {
          ivs.push_back(iv);
          SmallVector<Value> results = outerLoops(nested, loc, dim + 1, ivs, carried);
          ivs.pop_back();
          nested.create<scf::YieldOp>(loc, results);
        });
    return loop.getResults();
  }

  // The operand's indices at the outer loops' ivs, `innerIndex` for the
  // innermost loop where the operand has it.
  SmallVector<Value> indicesOf(AffineMap map, ValueRange outerIvs, Value innerIndex) const {
    SmallVector<Value> indices;
    for (AffineExpr result : map.getResults()) {
      unsigned dim = cast<AffineDimExpr>(result).getPosition();
      indices.push_back(dim == inner_ ? innerIndex : outerIvs[dim]);
    }
    return indices;
  }

  // Where the loop reads `operand`: an output from the loop's carried
  // value, and so is an input that is also an output's initial value at
  // the same indices, each written once (adjit-write-into-dead-inputs
  // makes those): the output has not overwritten it there yet. Reading the
  // original would keep it alive beside the overwritten buffer, which
  // bufferization can only do with a copy.
  Value sourceOf(OpOperand &operand, ValueRange outputs) {
    if (!op_.isDpsInput(&operand))
      return outputs[outputIndex(operand)];
    for (OpOperand &init : op_.getDpsInitsMutable())
      if (init.get() == operand.get() && op_.getMatchingIndexingMap(&init).isPermutation() &&
          op_.getMatchingIndexingMap(&init) == op_.getMatchingIndexingMap(&operand))
        return outputs[outputIndex(init)];
    return operand.get();
  }

  // The values that do not vary along the innermost loop, at one point of
  // the outer loops: the operands' elements there and what the body
  // computes from them alone.
  IRMapping uniformValues(OpBuilder &b, Location loc, ValueRange outerIvs, ValueRange outputs) {
    IRMapping uniform;
    for (OpOperand &operand : op_->getOpOperands()) {
      BlockArgument argument = op_.getMatchingBlockArgument(&operand);
      if (varying_.contains(argument) || argument.use_empty())
        continue;
      Value source = sourceOf(operand, outputs);
      if (!isa<RankedTensorType>(source.getType())) {
        uniform.map(argument, source);
        continue;
      }
      AffineMap map = op_.getMatchingIndexingMap(&operand);
      uniform.map(argument, b.create<tensor::ExtractOp>(loc, source, indicesOf(map, outerIvs, Value())));
    }
    for (Operation &inner : op_.getBlock()->without_terminator()) {
      if (varying_.contains(inner.getResult(0)))
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(inner))
        uniform.map(index.getResult(), outerIvs[index.getDim()]);
      else
        b.clone(inner, uniform);
    }
    return uniform;
  }

  // The innermost loop for one point of the outer loops: uniform values
  // once, then full vectors, then one shorter vector for the remainder.
  SmallVector<Value> innerLoop(OpBuilder &b, Location loc, ValueRange outerIvs, ValueRange outputs) {
    IRMapping uniform = uniformValues(b, loc, outerIvs, outputs);
    if (!argReductions_.empty())
      return argReductionLoop(b, loc, outerIvs, uniform, outputs);
    int64_t extent = ranges_[inner_];
    int64_t fullVectors = extent / lanes_ * lanes_;
    SmallVector<Value> carried(outputs);
    SmallVector<BlockArgument> reduced;
    for (BlockArgument argument : op_.getRegionOutputArgs())
      if (reductions_.contains(argument))
        reduced.push_back(argument);
    auto neutralLanes = [&](int64_t lanes) {
      SmallVector<Value> accumulators;
      for (BlockArgument argument : reduced) {
        auto type = VectorType::get({lanes}, argument.getType());
        accumulators.push_back(b.create<arith::ConstantOp>(
            loc, type, DenseElementsAttr::get(type, reductions_.lookup(argument).neutral)));
      }
      return accumulators;
    };
    SmallVector<Value> accumulators = neutralLanes(lanes_);
    if (fullVectors > 0) {
      SmallVector<Value> initial(carried);
      initial.append(accumulators);
      Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
      Value end = b.create<arith::ConstantIndexOp>(loc, fullVectors);
      Value step = b.create<arith::ConstantIndexOp>(loc, lanes_);
      auto loop = b.create<scf::ForOp>(
          loc, zero, end, step, initial, [&](OpBuilder &nested, Location loc, Value j, ValueRange state) {
            SmallVector<Value> next = vectorStep(nested, loc, lanes_, j, outerIvs, uniform,
                                                 state.take_front(outputs.size()),
                                                 state.drop_front(outputs.size()));
            nested.create<scf::YieldOp>(loc, next);
          });
      carried.assign(loop.getResults().begin(), loop.getResults().begin() + outputs.size());
      accumulators.assign(loop.getResults().begin() + outputs.size(), loop.getResults().end());
    }
    SmallVector<Value> remainder;
    if (int64_t rest = extent - fullVectors) {
      Value start = b.create<arith::ConstantIndexOp>(loc, fullVectors);
      SmallVector<Value> next = vectorStep(b, loc, rest, start, outerIvs, uniform, carried, neutralLanes(rest));
      carried.assign(next.begin(), next.begin() + outputs.size());
      remainder.assign(next.begin() + outputs.size(), next.end());
    }
    // Lanes reduced into the output's value: the full vectors' lanes first,
    // then the remainder's.
    for (auto [index, argument] : llvm::enumerate(reduced)) {
      unsigned output = argument.getArgNumber() - op_.getNumDpsInputs();
      const InnerReduction &reduction = reductions_.lookup(argument);
      AffineMap map = op_.getIndexingMapsArray()[argument.getArgNumber()];
      SmallVector<Value> indices = indicesOf(map, outerIvs, Value());
      Value value = b.create<tensor::ExtractOp>(loc, carried[output], indices);
      arith::FastMathFlags flags = fastmathOf(reduction.combiner);
      if (fullVectors > 0)
        value = b.create<vector::ReductionOp>(loc, reduction.kind, accumulators[index], value, flags);
      if (!remainder.empty())
        value = b.create<vector::ReductionOp>(loc, reduction.kind, remainder[index], value, flags);
      carried[output] = b.create<tensor::InsertOp>(loc, value, carried[output], indices);
    }
    return carried;
  }

  static arith::FastMathFlags fastmathOf(Operation *op) {
    if (auto fastmath = dyn_cast<arith::ArithFastMathInterface>(op))
      return fastmath.getFastMathFlagsAttr().getValue();
    return arith::FastMathFlags::none;
  }

  // `lanes` iterations of the innermost loop from `j`: returns the outputs
  // and the reductions' accumulators after them.
  SmallVector<Value> vectorStep(OpBuilder &b, Location loc, int64_t lanes, Value j, ValueRange outerIvs,
                                const IRMapping &uniform, ValueRange outputs, ValueRange accumulators) {
    IRMapping values = uniform;
    auto vectorOf = [&](Value scalar) { return vectorOfLanes(b, loc, values, scalar, lanes); };
    SmallVector<bool> inBounds = {true};
    unsigned reductionIndex = 0;
    for (OpOperand &operand : op_->getOpOperands()) {
      BlockArgument argument = op_.getMatchingBlockArgument(&operand);
      if (!varying_.contains(argument))
        continue;
      if (isAccumulated(argument)) {
        values.map(argument, accumulators[reductionIndex++]);
        continue;
      }
      if (values.contains(argument))
        continue;  // a transposed tile's row, read by the caller
      Value source = sourceOf(operand, outputs);
      AffineMap map = op_.getMatchingIndexingMap(&operand);
      values.map(argument, b.create<vector::TransferReadOp>(
                               loc, VectorType::get({lanes}, argument.getType()), source,
                               indicesOf(map, outerIvs, j), ArrayRef<bool>(inBounds)));
    }
    for (Operation &inner : op_.getBlock()->without_terminator()) {
      if (!varying_.contains(inner.getResult(0)))
        continue;
      if (laneIndexValues_.contains(inner.getResult(0))) {
        Value index = inner.getResult(0);
        if (isReadBeyondCasts(index))
          values.map(index, laneIndices(b, loc, lanes, j, index.getType()));
        continue;
      }
      if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
        values.map(extract.getResult(), isa_and_present<linalg::IndexOp>(
                                            extract.getIndices().back().getDefiningOp())
                                            ? readAlongLanes(b, loc, extract, values, lanes, j)
                                            : gathered(b, loc, extract, values, lanes));
        continue;
      }
      cloneOnLanes(b, loc, inner, values, lanes);
    }
    SmallVector<Value> next(outputs);
    SmallVector<Value> nextAccumulators;
    auto yield = cast<linalg::YieldOp>(op_.getBlock()->getTerminator());
    for (auto [index, argument] : llvm::enumerate(op_.getRegionOutputArgs())) {
      Value yielded = vectorOf(yield.getOperand(index));
      if (isAccumulated(argument)) {
        nextAccumulators.push_back(yielded);
        continue;
      }
      AffineMap map = op_.getIndexingMapsArray()[argument.getArgNumber()];
      next[index] = b.create<vector::TransferWriteOp>(loc, yielded, next[index], indicesOf(map, outerIvs, j),
                                                      ArrayRef<bool>(inBounds))
                        .getResult();
    }
    next.append(nextAccumulators);
    return next;
  }

  // Whether a lane index is read by more than the next cast of the chain
  // (only such indices are made, in their type).
  bool isReadBeyondCasts(Value index) const {
    return llvm::any_of(index.getUsers(), [&](Operation *user) {
      return user->getNumResults() != 1 || !laneIndexValues_.contains(user->getResult(0));
    });
  }

  bool isAccumulated(BlockArgument argument) const {
    return reductions_.contains(argument) || argReductionOutputs_.contains(argument);
  }

  // j, j + 1, ..., j + lanes - 1: the innermost loop's index in each lane.
  // of `element` type (index or an integer: the index cast, wrapping as a
  // truncation does).
  static Value laneIndices(OpBuilder &b, Location loc, int64_t lanes, Value j, Type element) {
    auto type = VectorType::get({lanes}, element);
    Value steps = b.create<arith::ConstantOp>(
        loc, type, DenseElementsAttr::get(type, llvm::to_vector(llvm::map_range(
                                                    llvm::seq<int64_t>(0, lanes),
                                                    [&](int64_t i) -> Attribute {
                                                      return b.getIntegerAttr(element, i);
                                                    }))));
    Value first = element.isIndex() ? j : b.create<arith::IndexCastOp>(loc, element, j).getResult();
    return b.create<arith::AddIOp>(loc, b.create<vector::BroadcastOp>(loc, type, first), steps);
  }

  // An arg-reduction's row: every lane starts from the output's value and
  // runs the body on its own elements, so each holds the first index of
  // its best; halving trees then keep, lane against lane, the better value
  // or on a tie (neither better) the smaller index, which is the first
  // index of the best of the row; the elements past the whole vectors
  // follow one at a time, as the body runs them.
  SmallVector<Value> argReductionLoop(OpBuilder &b, Location loc, ValueRange outerIvs,
                                      const IRMapping &uniform, ValueRange outputs) {
    int64_t extent = ranges_[inner_], fullVectors = extent / lanes_ * lanes_;
    SmallVector<Value> starts;
    for (BlockArgument argument : op_.getRegionOutputArgs()) {
      AffineMap map = op_.getIndexingMapsArray()[argument.getArgNumber()];
      unsigned output = argument.getArgNumber() - op_.getNumDpsInputs();
      starts.push_back(b.create<tensor::ExtractOp>(loc, outputs[output], indicesOf(map, outerIvs, Value())));
    }
    auto lanesOf = [&](ValueRange scalars, int64_t lanes) {
      return llvm::map_to_vector(scalars, [&](Value v) -> Value {
        return b.create<vector::BroadcastOp>(loc, VectorType::get({lanes}, v.getType()), v);
      });
    };
    SmallVector<Value> best(starts);
    if (fullVectors > 0) {
      auto loop = b.create<scf::ForOp>(
          loc, b.create<arith::ConstantIndexOp>(loc, 0), b.create<arith::ConstantIndexOp>(loc, fullVectors),
          b.create<arith::ConstantIndexOp>(loc, lanes_), lanesOf(starts, lanes_),
          [&](OpBuilder &nested, Location loc, Value j, ValueRange state) {
            SmallVector<Value> next = vectorStep(nested, loc, lanes_, j, outerIvs, uniform, outputs, state);
            nested.create<scf::YieldOp>(loc, ArrayRef<Value>(next).drop_front(outputs.size()));
          });
      best = combineLanes(b, loc, uniform, loop.getResults());
    }
    if (fullVectors < extent) {
      auto loop = b.create<scf::ForOp>(
          loc, b.create<arith::ConstantIndexOp>(loc, fullVectors), b.create<arith::ConstantIndexOp>(loc, extent),
          b.create<arith::ConstantIndexOp>(loc, 1), lanesOf(best, 1),
          [&](OpBuilder &nested, Location loc, Value j, ValueRange state) {
            SmallVector<Value> next = vectorStep(nested, loc, 1, j, outerIvs, uniform, outputs, state);
            nested.create<scf::YieldOp>(loc, ArrayRef<Value>(next).drop_front(outputs.size()));
          });
      best = llvm::map_to_vector(loop.getResults(), [&](Value v) -> Value {
        return b.create<vector::ExtractOp>(loc, v, ArrayRef<int64_t>{0});
      });
    }
    SmallVector<Value> results(outputs);
    for (BlockArgument argument : op_.getRegionOutputArgs()) {
      AffineMap map = op_.getIndexingMapsArray()[argument.getArgNumber()];
      unsigned output = argument.getArgNumber() - op_.getNumDpsInputs();
      results[output] = b.create<tensor::InsertOp>(loc, best[output], results[output],
                                                   indicesOf(map, outerIvs, Value()));
    }
    return results;
  }

  // The lanes of each arg-reduction's (value, index) vectors, in output
  // order, combined into scalars.
  SmallVector<Value> combineLanes(OpBuilder &b, Location loc, const IRMapping &uniform,
                                  ValueRange accumulators) {
    SmallVector<Value> lanes(accumulators);
    SmallVector<BlockArgument> outputs(op_.getRegionOutputArgs());
    for (int64_t width = lanes_; width > 1; width /= 2) {
      auto half = [&](Value v, int64_t from) {
        SmallVector<int64_t> mask = llvm::to_vector(llvm::seq<int64_t>(from, from + width / 2));
        return b.create<vector::ShuffleOp>(loc, v, v, mask).getResult();
      };
      SmallVector<Value> next(lanes.size());
      for (const ArgReduction &reduction : argReductions_) {
        unsigned v = reduction.value.getArgNumber() - op_.getNumDpsInputs();
        unsigned i = reduction.index.getArgNumber() - op_.getNumDpsInputs();
        Value lowValue = half(lanes[v], 0), highValue = half(lanes[v], width / 2);
        Value lowIndex = half(lanes[i], 0), highIndex = half(lanes[i], width / 2);
        Value better = predicate(b, loc, reduction, uniform, width / 2, highValue, lowValue);
        Value worse = predicate(b, loc, reduction, uniform, width / 2, lowValue, highValue);
        Value earlier = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, highIndex, lowIndex);
        Value tie = b.create<arith::AndIOp>(
            loc, b.create<arith::XOrIOp>(loc, worse, constantTrue(b, loc, width / 2)), earlier);
        Value take = b.create<arith::OrIOp>(loc, better, tie);
        next[v] = b.create<arith::SelectOp>(loc, take, highValue, lowValue);
        next[i] = b.create<arith::SelectOp>(loc, take, highIndex, lowIndex);
      }
      lanes = std::move(next);
    }
    return llvm::map_to_vector(lanes, [&](Value v) -> Value {
      return b.create<vector::ExtractOp>(loc, v, ArrayRef<int64_t>{0});
    });
  }

  static Value constantTrue(OpBuilder &b, Location loc, int64_t lanes) {
    auto type = VectorType::get({lanes}, b.getI1Type());
    return b.create<arith::ConstantOp>(loc, type, DenseElementsAttr::get(type, true));
  }

  // The reduction's predicate (is `candidate` better than `best`?) on
  // vectors of `lanes`.
  Value predicate(OpBuilder &b, Location loc, const ArgReduction &reduction, const IRMapping &uniform,
                  int64_t lanes, Value candidate, Value best) {
    IRMapping values = uniform;
    values.map(reduction.candidate, candidate);
    values.map(reduction.value, best);
    for (Operation *op : reduction.predicateOps)
      cloneOnLanes(b, loc, *op, values, lanes);
    return values.lookup(reduction.predicate);
  }

  // `extract`'s indices but the last, as the lanes share them.
  static SmallVector<Value> leadingIndices(tensor::ExtractOp extract, const IRMapping &values) {
    return llvm::map_to_vector(extract.getIndices().drop_back(),
                               [&](Value v) { return values.lookupOrDefault(v); });
  }

  // The elements `extract` reads in each lane when its last index is the
  // innermost loop's own (a take along the first axis copies rows): the
  // lanes' consecutive elements from `j`, one vector read where a gather
  // would fetch them one by one (1024 rows of 1024 f32 on Zen 4: 4x).
  // In bounds where the tensor's last dimension holds the whole loop.
  Value readAlongLanes(OpBuilder &b, Location loc, tensor::ExtractOp extract, IRMapping &values,
                       int64_t lanes, Value j) const {
    SmallVector<Value> at = leadingIndices(extract, values);
    at.push_back(j);
    int64_t extent = extract.getTensor().getType().getShape().back();
    bool inBounds = !ShapedType::isDynamic(extent) && !ShapedType::isDynamic(ranges_[inner_]) &&
                    ranges_[inner_] <= extent;
    Value padding = b.create<arith::ConstantOp>(loc, b.getZeroAttr(extract.getType()));
    return b.create<vector::TransferReadOp>(loc, VectorType::get({lanes}, extract.getType()),
                                            extract.getTensor(), at, padding,
                                            ArrayRef<bool>{inBounds});
  }

  // The elements `extract` reads in each lane: a gather along the tensor's
  // last dimension, at the lanes' indices there.
  static Value gathered(OpBuilder &b, Location loc, tensor::ExtractOp extract, IRMapping &values,
                        int64_t lanes) {
    SmallVector<Value> base = leadingIndices(extract, values);
    base.push_back(b.create<arith::ConstantIndexOp>(loc, 0));
    Value offsets = vectorOfLanes(b, loc, values, extract.getIndices().back(), lanes);
    auto type = VectorType::get({lanes}, extract.getType());
    auto maskType = VectorType::get({lanes}, b.getI1Type());
    Value all = b.create<arith::ConstantOp>(loc, maskType, DenseElementsAttr::get(maskType, true));
    Value none = b.create<arith::ConstantOp>(loc, type, b.getZeroAttr(type));
    return b.create<vector::GatherOp>(loc, type, extract.getTensor(), base, offsets, all, none);
  }

  // `scalar` as mapped in `values`, broadcast to `lanes` if it is a scalar.
  static Value vectorOfLanes(OpBuilder &b, Location loc, const IRMapping &values, Value scalar,
                             int64_t lanes) {
    Value mapped = values.lookupOrDefault(scalar);
    if (isa<VectorType>(mapped.getType()))
      return mapped;
    return b.create<vector::BroadcastOp>(loc, VectorType::get({lanes}, mapped.getType()), mapped);
  }

  // The elementwise `op` on vectors of `lanes` of its mapped operands; its
  // results are mapped in `values`.
  static void cloneOnLanes(OpBuilder &b, Location loc, Operation &op, IRMapping &values,
                           int64_t lanes) {
    SmallVector<Value> operands = llvm::map_to_vector(
        op.getOperands(), [&](Value v) { return vectorOfLanes(b, loc, values, v, lanes); });
    SmallVector<Type> types = llvm::map_to_vector(
        op.getResultTypes(), [&](Type type) -> Type { return VectorType::get({lanes}, type); });
    values.map(op.getResults(),
               b.create(loc, op.getName().getIdentifier(), operands, types, op.getAttrs())->getResults());
  }

  // The loops of a generic with transposed inputs: the outer loops as
  // usual, except that `tileDim_` (the loop along which those inputs are
  // contiguous) and the innermost loop run together in square tiles.
  SmallVector<Value> tiledLoops(OpBuilder &b, Location loc, unsigned dim,
                                SmallVectorImpl<Value> &ivs, ValueRange outputs) {
    if (dim == inner_)
      return tiles(b, loc, ivs, outputs);
    if (dim == *tileDim_) {
      ivs.push_back(Value()); // set per tile row
      SmallVector<Value> results = tiledLoops(b, loc, dim + 1, ivs, outputs);
      ivs.pop_back();
      return results;
    }
    return forLoop(b, loc, 0, ranges_[dim], 1, outputs,
                   [&](OpBuilder &nested, Location loc, Value iv, ValueRange carried) {
                     ivs.push_back(iv);
                     SmallVector<Value> results = tiledLoops(nested, loc, dim + 1, ivs, carried);
                     ivs.pop_back();
                     return results;
                   });
  }

  using LoopBody = function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)>;
  SmallVector<Value> forLoop(OpBuilder &b, Location loc, int64_t from, int64_t to, int64_t step,
                             ValueRange carried, LoopBody body) {
    if (from >= to)
      return SmallVector<Value>(carried);
    auto loop = b.create<scf::ForOp>(
        loc, b.create<arith::ConstantIndexOp>(loc, from), b.create<arith::ConstantIndexOp>(loc, to),
        b.create<arith::ConstantIndexOp>(loc, step), carried,
        [&](OpBuilder &nested, Location loc, Value iv, ValueRange state) {
          nested.create<scf::YieldOp>(loc, body(nested, loc, iv, state));
        });
    return loop.getResults();
  }

  // Square tiles of lanes_ x lanes_ over (tileDim_, innermost): each
  // transposed input's tile is read as lanes_ vectors along tileDim_ and
  // transposed in registers, then each row of the tile runs as one vector
  // step. The parts of the plane that whole tiles do not cover run one
  // element at a time.
  SmallVector<Value> tiles(OpBuilder &b, Location loc, SmallVectorImpl<Value> &ivs,
                           ValueRange outputs) {
    unsigned across = *tileDim_;
    // Every loop's index, the tile's two set per step.
    size_t depth = ivs.size();
    ivs.resize(ranges_.size());
    auto restore = llvm::make_scope_exit([&] { ivs.resize(depth); });
    int64_t rows = ranges_[across], columns = ranges_[inner_];
    int64_t wholeRows = rows / lanes_ * lanes_, wholeColumns = columns / lanes_ * lanes_;
    auto point = [&](OpBuilder &b, Location loc, Value row, Value column, ValueRange carried) {
      ivs[across] = row;
      IRMapping uniform = uniformValues(b, loc, ivs, carried);
      SmallVector<Value> next = vectorStep(b, loc, 1, column, ivs, uniform, carried, {});
      return next;
    };
    auto points = [&](OpBuilder &b, Location loc, int64_t rowFrom, int64_t rowTo, Value rowBase,
                      int64_t columnFrom, ValueRange carried) {
      return forLoop(b, loc, rowFrom, rowTo, 1, carried,
                     [&](OpBuilder &b, Location loc, Value r, ValueRange carried) {
                       Value row = rowBase ? b.create<arith::AddIOp>(loc, rowBase, r).getResult() : r;
                       return forLoop(b, loc, columnFrom, columns, 1, carried,
                                      [&](OpBuilder &b, Location loc, Value column, ValueRange carried) {
                                        return point(b, loc, row, column, carried);
                                      });
                     });
    };
    SmallVector<Value> carried = forLoop(
        b, loc, 0, wholeRows, lanes_, outputs,
        [&](OpBuilder &b, Location loc, Value row0, ValueRange carried) {
          SmallVector<Value> next = forLoop(
              b, loc, 0, wholeColumns, lanes_, carried,
              [&](OpBuilder &b, Location loc, Value column0, ValueRange carried) {
                return tile(b, loc, ivs, row0, column0, carried, lanes_);
              });
          return points(b, loc, 0, lanes_, row0, wholeColumns, next);
        });
    if (wholeRows == rows)
      return carried;
    // Bools in memory are read only in bounds (adjit's vectors of i1 are
    // loaded as bytes).
    if (llvm::any_of(transposed_, [](BlockArgument a) { return a.getType().isInteger(1); }))
      return points(b, loc, wholeRows, rows, Value(), 0, carried);
    // The last rows: tiles whose reads past the end are padding and whose
    // rows past it are not run, then what is left one element at a time.
    Value lastRows = b.create<arith::ConstantIndexOp>(loc, wholeRows);
    carried = forLoop(b, loc, 0, wholeColumns, lanes_, carried,
                      [&](OpBuilder &b, Location loc, Value column0, ValueRange carried) {
                        return tile(b, loc, ivs, lastRows, column0, carried, rows - wholeRows);
                      });
    return points(b, loc, wholeRows, rows, Value(), wholeColumns, carried);
  }

  // The tile from (row0, column0), of which `rows` rows are run.
  SmallVector<Value> tile(OpBuilder &b, Location loc, SmallVectorImpl<Value> &ivs, Value row0,
                          Value column0, ValueRange outputs, int64_t rows) {
    unsigned across = *tileDim_;
    DenseMap<BlockArgument, SmallVector<Value>> tileRows;
    for (OpOperand &operand : op_->getOpOperands()) {
      BlockArgument argument = op_.getMatchingBlockArgument(&operand);
      if (!transposed_.contains(argument))
        continue;
      AffineMap map = op_.getMatchingIndexingMap(&operand);
      auto type = VectorType::get({lanes_}, argument.getType());
      if (readsShortRowsFlat(operand, rows)) {
        tileRows[argument] = shortRowsAsColumns(b, loc, operand, ivs, column0, rows);
        continue;
      }
      SmallVector<Value> alongRows;
      ivs[across] = row0;
      for (int64_t q = 0; q < lanes_; ++q) {
        Value column = b.create<arith::AddIOp>(loc, column0, b.create<arith::ConstantIndexOp>(loc, q));
        alongRows.push_back(b.create<vector::TransferReadOp>(loc, type, sourceOf(operand, outputs),
                                                             indicesOf(map, ivs, column),
                                                             ArrayRef<bool>{rows == lanes_}));
      }
      tileRows[argument] = transposeInRegisters(b, loc, alongRows);
    }
    SmallVector<Value> carried(outputs);
    for (int64_t r = 0; r < rows; ++r) {
      ivs[across] = b.create<arith::AddIOp>(loc, row0, b.create<arith::ConstantIndexOp>(loc, r));
      IRMapping values = uniformValues(b, loc, ivs, carried);
      for (auto &[argument, rowsOfTile] : tileRows)
        values.map(argument, rowsOfTile[r]);
      carried = vectorStep(b, loc, lanes_, column0, ivs, values, carried, {});
    }
    return carried;
  }

  // Rows of at most kMaxFlatColumns elements reduced across rows (the
  // squared length of points of 3) are read as the tile's rows * lanes
  // consecutive elements, a few whole vectors, and each of the tile's
  // columns is gathered from them by rows - 1 two-source shuffles
  // (vpermt2ps): 3 loads and 6 shuffles for 16 points, where the square
  // tile took 16 loads and 64 shuffles. The tile's lanes must be whole
  // registers of AVX-512 (vpermt2ps reads two of them), and the operand
  // read through the identity, contiguous.
  static constexpr int64_t kMaxFlatColumns = 4;

  bool readsShortRowsFlat(OpOperand &operand, int64_t rows) {
    unsigned loops = ranges_.size();
    return op_.isDpsInput(&operand) && rows <= kMaxFlatColumns && rows == ranges_[*tileDim_] &&
           lanes_ * widestElementBits_ == 512 && *tileDim_ == loops - 1 && inner_ == loops - 2 &&
           op_.getMatchingIndexingMap(&operand).isIdentity() && adjit::isContiguous(operand.get());
  }

  SmallVector<Value> shortRowsAsColumns(OpBuilder &b, Location loc, OpOperand &operand,
                                        ArrayRef<Value> ivs, Value firstRow, int64_t rows) {
    auto type = VectorType::get({lanes_}, op_.getMatchingBlockArgument(&operand).getType());
    // The operand with its rows collapsed into one dimension.
    int64_t rank = ranges_.size();
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < rank - 2; ++d)
      groups.push_back({d});
    groups.push_back({rank - 2, rank - 1});
    Value flat = b.create<tensor::CollapseShapeOp>(loc, operand.get(), groups);
    SmallVector<Value> indices(ivs.begin(), ivs.begin() + (rank - 2));
    Value start = b.create<arith::MulIOp>(loc, firstRow, b.create<arith::ConstantIndexOp>(loc, rows));
    SmallVector<Value> vectors;
    for (int64_t q = 0; q < rows; ++q) {
      indices.push_back(b.create<arith::AddIOp>(loc, start, b.create<arith::ConstantIndexOp>(loc, q * lanes_)));
      vectors.push_back(b.create<vector::TransferReadOp>(loc, type, flat, indices, ArrayRef<bool>{true}));
      indices.pop_back();
    }
    // Column c: lane l is element l * rows + c, in vector (l * rows + c) / lanes.
    SmallVector<Value> columns;
    for (int64_t c = 0; c < rows; ++c) {
      auto sourceOf = [&](int64_t l) { return l * rows + c; };
      int64_t first = sourceOf(0) / lanes_, last = sourceOf(lanes_ - 1) / lanes_;
      // Each shuffle takes the lanes whose element lies in vector q from
      // it (the second operand) and keeps the others: the first takes
      // vector `first`'s from its first operand.
      Value column = vectors[first];
      for (int64_t q = first == last ? first : first + 1; q <= last; ++q) {
        SmallVector<int64_t> mask = llvm::map_to_vector(llvm::seq<int64_t>(0, lanes_), [&](int64_t l) {
          int64_t vector = sourceOf(l) / lanes_, lane = sourceOf(l) % lanes_;
          if (vector == q && q != first)
            return lanes_ + lane;
          return vector == first && (q == first || q == first + 1) ? lane : l;
        });
        column = b.create<vector::ShuffleOp>(loc, column, vectors[q], mask);
      }
      columns.push_back(column);
    }
    return columns;
  }

  // Transposes a square of n vectors of n lanes (n a power of two): at each
  // stage, the two off-diagonal blocks of every 2s x 2s block swap, one
  // two-source shuffle per vector (log2(n) stages; LLVM makes each an
  // unpack, a lane-crossing permute or a vpermt2ps).
  static SmallVector<Value> transposeInRegisters(OpBuilder &b, Location loc,
                                                 SmallVector<Value> rows) {
    int64_t n = rows.size();
    for (int64_t s = 1; s < n; s *= 2) {
      SmallVector<Value> next(rows);
      for (int64_t i = 0; i < n; ++i) {
        if (i & s)
          continue;
        SmallVector<int64_t> low, high;
        for (int64_t j = 0; j < n; ++j) {
          low.push_back(j & s ? n + j - s : j);
          high.push_back(j & s ? n + j : j + s);
        }
        next[i] = b.create<vector::ShuffleOp>(loc, rows[i], rows[i + s], low);
        next[i + s] = b.create<vector::ShuffleOp>(loc, rows[i], rows[i + s], high);
      }
      rows = std::move(next);
    }
    return rows;
  }

  linalg::GenericOp op_;
  bool vectorMathLibrary_;
  SmallVector<int64_t> ranges_;
  unsigned inner_ = 0;
  int64_t widestElementBits_ = 8;
  int64_t lanes_ = 0;
  DenseSet<Value> varying_;
  DenseMap<BlockArgument, InnerReduction> reductions_;
  // The innermost loop's index and its casts.
  DenseSet<Value> laneIndexValues_;
  // Argmax-like pairs of outputs, and the outputs they take.
  SmallVector<ArgReduction> argReductions_;
  DenseSet<BlockArgument> argReductionOutputs_;
  // Inputs contiguous along loop *tileDim_ instead of the innermost one.
  std::optional<unsigned> tileDim_;
  DenseSet<BlockArgument> transposed_;
  // Inputs read once per row of rows run as one long row.
  llvm::SetVector<BlockArgument> perRow_;
};

struct VectorizePass : adjit::impl::VectorizeBase<VectorizePass> {
  using VectorizeBase::VectorizeBase;

  void runOnOperation() override {
    int64_t bits = vectorBits > 0 ? int64_t(vectorBits) : adjit::hostVectorBits();
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      InnerLoopVectorizer vectorizer(op, bits, vectorMathLibrary);
      if (vectorizer.applies())
        vectorizer.rewrite(rewriter);
    }
  }
};

} // namespace
