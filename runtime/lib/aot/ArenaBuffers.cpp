#include "adjit/runtime/ArenaBuffers.h"

extern "C" {

void* adjit_arena_buffer(void* arena, int64_t offset) { return static_cast<char*>(arena) + offset; }

void adjit_arena_release(void*) {}

}  // extern "C"
