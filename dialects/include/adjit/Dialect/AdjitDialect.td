#ifndef ADJIT_DIALECT_TD
#define ADJIT_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"

def Adjit_Dialect : Dialect {
  let name = "adjit";
  let cppNamespace = "::mlir::adjit";
  let summary = "Value-semantic tensor ops that the adjit tracer records.";
  let description = [{
    The `adjit` dialect is what a traced C++ lambda becomes. Ops work on
    statically shaped ranked tensors of f16, bf16, f32, f64, i1, i32 and i64
    and are strict: elementwise operands have identical types, and the front
    end inserts explicit `adjit.broadcast_in_dim` ops for numpy broadcasting.
    Keeping every op this explicit keeps every lowering and derivative rule
    local and simple.
  }];
  let hasConstantMaterializer = 1;
  // Donation attributes on function arguments and results
  // (kAliasingOutputAttrName, kAliasingInputAttrName).
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

// Tensor kinds. Shapes are static: the tracer specializes per signature.
def Adjit_AnyTensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def Adjit_NumericTensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I32, I64]>;
def Adjit_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;
// Linear algebra factors in f32 or f64 (the tracer widens f16 and bf16).
def Adjit_SolverTensor : StaticShapeTensorOf<[F32, F64]>;
def Adjit_BoolTensor : StaticShapeTensorOf<[I1]>;
def Adjit_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Adjit_ScalarTensor : 0DTensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;

class Adjit_Op<string mnemonic, list<Trait> traits = []>
    : Op<Adjit_Dialect, mnemonic, traits>;

#endif // ADJIT_DIALECT_TD
