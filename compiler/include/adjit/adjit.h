#ifndef ADJIT_ADJIT_H
#define ADJIT_ADJIT_H

// The umbrella header of the public API (DESIGN.md §5).
#include "adjit/Aot.h"
#include "adjit/CheckGrads.h"
#include "adjit/ControlFlow.h"
#include "adjit/Grad.h"
#include "adjit/GradientTape.h"
#include "adjit/Jit.h"
#include "adjit/Tensor.h"
#include "adjit/compiler/Executable.h"
#include "adjit/compiler/Program.h"
#include "adjit/runtime/Array.h"
#include "adjit/runtime/ArraySpec.h"
#include "adjit/runtime/DType.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Npy.h"
#include "adjit/runtime/Shape.h"

#endif
