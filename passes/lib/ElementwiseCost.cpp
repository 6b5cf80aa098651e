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
  constexpr size_t kMaxDuplicatedOps = 24;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumResults() == 1 &&
         // (a block's size is linear to find: count no further than needed)
         llvm::hasNItemsOrLess(generic.getBody()->getOperations(), kMaxDuplicatedOps) &&
         !computesTranscendental(generic) &&
         llvm::all_of(generic.getIteratorTypesArray(),
                      [](utils::IteratorType t) { return t == utils::IteratorType::parallel; }) &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isProjectedPermutation(); });
}
