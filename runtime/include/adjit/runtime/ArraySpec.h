#pragma once

#include <string_view>

#include "adjit/runtime/Array.h"

namespace adjit {

// Builds an array from a command-line spec (`adjit run --arg SPEC`):
//   f32[2,2]=1,2,3,4     values, row-major; the count must match the shape
//   f32[]=3              a 0-d array
//   f32[1000]=randn:7    standard normal, seed 7 (Array::randn)
//   f32[4]=uniform:7     U[0,1), seed 7 (Array::uniform)
//   f32[3,3]=zeros       also =ones
//   f32[5]=fill:2.5      every element 2.5
//   i32[10]=iota         0, 1, ..., n-1 in row-major order
//   i1[3]=true,false,1   i1 values are true/false/1/0
//   @path/x.npy          a .npy file; so is any spec ending in ".npy"
// Throws adjit::Error quoting the spec and saying what is wrong.
Array parse_array_spec(std::string_view spec);

}  // namespace adjit
