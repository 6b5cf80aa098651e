#pragma once

#include <string>

#include "adjit/runtime/Array.h"

namespace adjit {

// NumPy .npy files (format 1.0 written; 1.0, 2.0 and 3.0 read), C order,
// little-endian dtypes <f2 <f4 <f8 |b1 <i4 <i8. bf16 has no NumPy dtype and is
// rejected. Failures throw adjit::Error naming the file.
Array load_npy(const std::string& path);
void save_npy(const Array& array, const std::string& path);
// Whether save_npy can write arrays of `dtype` (all but bf16).
bool has_npy_dtype(DType dtype);

}  // namespace adjit
