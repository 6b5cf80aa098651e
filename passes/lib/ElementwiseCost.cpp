#include "ElementwiseCost.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

static bool computesTranscendental(linalg::GenericOp generic) {
  return llvm::any_of(generic.getBody()->getOperations(), [](Operation &op) {
    return isa<math::MathDialect>(op.getDialect()) &&
           !isa<math::AbsFOp, math::AbsIOp, math::FmaOp, math::CopySignOp, math::SqrtOp,
                math::RsqrtOp>(op);
  });
}

bool adjit::isCheapElementwise(Operation *op) {
  // What computing one element again in every consumer but one may add.
  constexpr size_t kMaxDuplicatedWork = 32;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumResults() != 1)
    return false;
  // An element's work: its body's ops and the loads of its inputs, shared
  // out among the copies that its uses would make.
  size_t copies = std::max<size_t>(llvm::range_size(generic->getUses()), 2) - 1;
  size_t loads = generic.getNumDpsInputs(), limit = kMaxDuplicatedWork / copies;
  return loads < limit &&
         // (a block's size is linear to find: count no further than needed)
         llvm::hasNItemsOrLess(generic.getBody()->getOperations(), limit - loads) &&
         !computesTranscendental(generic) &&
         llvm::all_of(generic.getIteratorTypesArray(),
                      [](utils::IteratorType t) { return t == utils::IteratorType::parallel; }) &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isProjectedPermutation(); });
}
