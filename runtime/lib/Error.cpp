#include "adjit/runtime/Error.h"

namespace adjit {

// Out-of-line destructors give each class one home for its vtable and
// type_info, so an exception thrown in one shared object is caught by type in
// another even when symbols are hidden by default.
Error::~Error() = default;
TraceError::~TraceError() = default;
CompileError::~CompileError() = default;
RuntimeError::~RuntimeError() = default;

}  // namespace adjit
