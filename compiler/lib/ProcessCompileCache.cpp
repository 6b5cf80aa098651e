#include "adjit/compiler/ProcessCompileCache.h"

#include "adjit/runtime/Environment.h"

namespace adjit {

ProcessCompileCache& ProcessCompileCache::instance() {
  static ProcessCompileCache* cache = new ProcessCompileCache(
      megabytes_variable("ADJIT_PROCESS_CACHE_MB").value_or(uint64_t{256} << 20));
  return *cache;
}

ProcessCompileCache::Object ProcessCompileCache::load(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto found = by_key_.find(key);
  if (found == by_key_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  entries_.splice(entries_.begin(), entries_, found->second);
  return found->second->object;
}

void ProcessCompileCache::store(const std::string& key, Object object) {
  if (!object || object->size() > max_bytes_) return;  // off, or larger than all of it
  std::lock_guard lock(mutex_);
  drop(key);
  bytes_ += object->size();
  entries_.push_front({key, std::move(object)});
  by_key_[key] = entries_.begin();
  while (bytes_ > max_bytes_) {
    std::string oldest = entries_.back().key;  // drop() destroys the entry
    drop(oldest);
  }
}

void ProcessCompileCache::remove(const std::string& key) {
  std::lock_guard lock(mutex_);
  drop(key);
}

void ProcessCompileCache::drop(const std::string& key) {
  auto found = by_key_.find(key);
  if (found == by_key_.end()) return;
  bytes_ -= found->second->object->size();
  entries_.erase(found->second);
  by_key_.erase(found);
}

ProcessCompileCache::Info ProcessCompileCache::info() const {
  std::lock_guard lock(mutex_);
  return {hits_, misses_, entries_.size(), bytes_, max_bytes_};
}

void ProcessCompileCache::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
  by_key_.clear();
  bytes_ = hits_ = misses_ = 0;
}

}  // namespace adjit
