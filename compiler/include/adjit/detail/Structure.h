#ifndef ADJIT_DETAIL_STRUCTURE_H
#define ADJIT_DETAIL_STRUCTURE_H

// How arguments and results of traced callables map between Arrays (at the
// call) and Tensors (in the trace): leaves, nested containers, and static
// values that become part of the cache key.

#include "adjit/Tensor.h"
#include "adjit/detail/FunctionRef.h"
#include "adjit/runtime/Array.h"

#include <array>
#include <bit>
#include <cstring>
#include <algorithm>
#include <functional>
#include <string_view>
#include <typeinfo>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace adjit::detail {

/// The cache key of one call: a flat list of words (no allocation once the
/// thread-local buffer has grown).
class CacheKey {
 public:
  void clear() { words_.clear(); }
  void push(uint64_t word) { words_.push_back(word); }
  const std::vector<uint64_t>& words() const { return words_; }
  /// Every bit depends on every bit of every word (splitmix64's finalizer
  /// per word): a product alone carries differences only upwards, so the
  /// low half of the hash, which names dump files, ignored the high half of
  /// each word (static doubles such as 2.0 and 3.0 collided).
  uint64_t hash() const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t w : words_) h = mix((h ^ w) * 1099511628211ull);
    return h;
  }

 private:
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  std::vector<uint64_t> words_;
};

enum KeyTag : uint64_t {
  kArrayLeaf = 1,
  kVector,
  kTuple,
  kStdArray,
  kStaticInteger,
  kStaticFloat,
  kStaticString
};

/// Adds one traced parameter to the function being traced.
using ParameterFn = FunctionRef<Tensor(DType, const Shape&)>;

template <class T, class Enable = void>
struct StructureTraits;  // unsupported types fail here: Jitted's static_asserts say so

template <class T>
using traced_t = typename StructureTraits<T>::Traced;

/// What a traced function may return: a Tensor, or a tuple, pair, array
/// or vector of them.
template <class T>
concept ResultStructure =
    requires(const T& result, std::vector<Tensor>& flat, std::vector<size_t>& layout) {
      StructureTraits<T>::flatten_result(result, flat, layout);
    };

// Leaves ---------------------------------------------------------------------

template <>
struct StructureTraits<Array> {
  using Traced = Tensor;
  using Rebuilt = Array;  // containers name it; Array arguments are never rebuilt
  static void append_key(CacheKey& key, const Array& a) {
    key.push(kArrayLeaf);
    key.push(static_cast<uint64_t>(a.dtype()));
    key.push(a.shape().size());
    for (int64_t d : a.shape()) key.push(static_cast<uint64_t>(d));
  }
  static void collect_arrays(const Array& a, std::vector<Array>& out) { out.push_back(a); }
  static Tensor make_traced(const Array& a, ParameterFn parameter) {
    return parameter(a.dtype(), a.shape());
  }
  static std::string describe(const Array& a) { return type_string(a.dtype(), a.shape()); }
};

template <>
struct StructureTraits<Tensor> {
  using Traced = Tensor;
  // As an argument of a function traced inside a trace (grad, vjp, ...).
  static void collect_tensors(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
  static Tensor make_traced(const Tensor& t, ParameterFn parameter) {
    return parameter(t.dtype(), t.shape());
  }
  static Tensor rebuild_like(const Tensor&, const std::vector<Tensor>& flat, size_t& position) {
    return flat[position++];
  }
  static void flatten_result(const Tensor& t, std::vector<Tensor>& flat, std::vector<size_t>&) {
    flat.push_back(t);
  }
  using Rebuilt = Array;
  static Array rebuild(std::vector<Array>& outputs, size_t& position, const std::vector<size_t>&,
                       size_t&) {
    return std::move(outputs[position++]);
  }
};

// Static values: part of the key, passed to the callable unchanged.
template <class T>
struct StructureTraits<T, std::enable_if_t<std::is_arithmetic_v<T> || std::is_enum_v<T>>> {
  using Traced = T;
  using Rebuilt = T;
  static void append_key(CacheKey& key, const T& v) {
    key.push(typeid(T).hash_code());  // 1 and true and an enum's 1 differ
    if constexpr (std::is_floating_point_v<T>) {
      key.push(kStaticFloat);
      double leading = static_cast<double>(v);
      key.push(std::bit_cast<uint64_t>(leading));
      // A long double's digits past a double's (exactly a double: x87's 64
      // bits of mantissa are 53 + 11).
      if constexpr (sizeof(T) > sizeof(double))
        key.push(std::bit_cast<uint64_t>(static_cast<double>(v - static_cast<T>(leading))));
    } else {
      key.push(kStaticInteger);
      key.push(static_cast<uint64_t>(static_cast<int64_t>(v)));
    }
  }
  static void collect_arrays(const T&, std::vector<Array>&) {}
  static void collect_tensors(const T&, std::vector<Tensor>&) {}
  static T make_traced(const T& v, ParameterFn) { return v; }
  static std::string describe(const T& v) {
    std::ostringstream os;
    if constexpr (std::is_same_v<T, bool>) os << (v ? "true" : "false");
    else if constexpr (std::is_enum_v<T>) os << "enum " << static_cast<int64_t>(v);
    else os << +v;
    return os.str();
  }
};

// A static string's key: its type (a generic lambda may treat a const
// char* and a std::string differently), then the whole string, 8 bytes a
// word: a hash could collide and reuse the code compiled for another value.
template <class S>
void append_static_string_key(CacheKey& key, std::string_view s) {
  key.push(typeid(S).hash_code());
  key.push(kStaticString);
  key.push(s.size());
  for (size_t i = 0; i < s.size(); i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, s.data() + i, std::min<size_t>(8, s.size() - i));
    key.push(word);
  }
}

// std::string and the other spellings of a static string, described as
// their characters.
template <class S>
struct StaticStringTraits {
  using Traced = S;
  using Rebuilt = S;
  static void append_key(CacheKey& key, const S& s) { append_static_string_key<S>(key, s); }
  static void collect_arrays(const S&, std::vector<Array>&) {}
  static void collect_tensors(const S&, std::vector<Tensor>&) {}
  static S make_traced(const S& s, ParameterFn) { return s; }
  static std::string describe(const S& s) { return "\"" + std::string(s) + "\""; }
};

template <>
struct StructureTraits<std::string> : StaticStringTraits<std::string> {};
template <>
struct StructureTraits<const char*> : StaticStringTraits<const char*> {};
template <>
struct StructureTraits<char*> : StaticStringTraits<char*> {};
template <>
struct StructureTraits<std::string_view> : StaticStringTraits<std::string_view> {};

// Containers -----------------------------------------------------------------

template <class T>
struct StructureTraits<std::vector<T>> {
  using Element = StructureTraits<T>;
  using Traced = std::vector<traced_t<T>>;
  static void append_key(CacheKey& key, const std::vector<T>& v) {
    key.push(kVector);
    key.push(v.size());
    for (const T& x : v) Element::append_key(key, x);
  }
  static void collect_arrays(const std::vector<T>& v, std::vector<Array>& out) {
    for (const T& x : v) Element::collect_arrays(x, out);
  }
  static void collect_tensors(const std::vector<T>& v, std::vector<Tensor>& out) {
    for (const T& x : v) Element::collect_tensors(x, out);
  }
  static std::vector<T> rebuild_like(const std::vector<T>& like, const std::vector<Tensor>& flat,
                                     size_t& position) {
    std::vector<T> result;
    for (const T& x : like) result.push_back(Element::rebuild_like(x, flat, position));
    return result;
  }
  static Traced make_traced(const std::vector<T>& v, ParameterFn parameter) {
    Traced traced;
    for (const T& x : v) traced.push_back(Element::make_traced(x, parameter));
    return traced;
  }
  static std::string describe(const std::vector<T>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + Element::describe(v[i]);
    return s + "]";
  }
  // As a result: the length goes into the layout, read back on rebuild.
  static void flatten_result(const std::vector<T>& v, std::vector<Tensor>& flat,
                             std::vector<size_t>& layout) {
    layout.push_back(v.size());
    for (const T& x : v) Element::flatten_result(x, flat, layout);
  }
  using Rebuilt = std::vector<typename Element::Rebuilt>;
  static Rebuilt rebuild(std::vector<Array>& outputs, size_t& position,
                         const std::vector<size_t>& layout, size_t& vector_index) {
    size_t n = layout[vector_index++];
    Rebuilt result;
    for (size_t i = 0; i < n; ++i)
      result.push_back(Element::rebuild(outputs, position, layout, vector_index));
    return result;
  }
};

template <class Tuple, class... Ts>
struct TupleLikeTraits {
  template <size_t... I>
  static void append_key(CacheKey& key, const Tuple& t, std::index_sequence<I...>) {
    key.push(kTuple);
    key.push(typeid(Tuple).hash_code());  // a pair is not a tuple
    key.push(sizeof...(Ts));
    (StructureTraits<Ts>::append_key(key, std::get<I>(t)), ...);
  }
  static void append_key(CacheKey& key, const Tuple& t) {
    append_key(key, t, std::index_sequence_for<Ts...>{});
  }
  static void collect_arrays(const Tuple& t, std::vector<Array>& out) {
    std::apply([&](const Ts&... x) { (StructureTraits<Ts>::collect_arrays(x, out), ...); }, t);
  }
  static void collect_tensors(const Tuple& t, std::vector<Tensor>& out) {
    std::apply([&](const Ts&... x) { (StructureTraits<Ts>::collect_tensors(x, out), ...); }, t);
  }
  static Tuple rebuild_like(const Tuple& like, const std::vector<Tensor>& flat, size_t& position) {
    return std::apply(
        [&](const Ts&... x) { return Tuple{StructureTraits<Ts>::rebuild_like(x, flat, position)...}; },
        like);
  }
  static std::string describe(const Tuple& t) {
    std::string s = "(";
    bool first = true;
    std::apply([&](const Ts&... x) {
      ((s += (first ? "" : ", ") + StructureTraits<Ts>::describe(x), first = false), ...);
    }, t);
    return s + ")";
  }
  static void flatten_result(const Tuple& t, std::vector<Tensor>& flat,
                             std::vector<size_t>& layout) {
    std::apply([&](const Ts&... x) { (StructureTraits<Ts>::flatten_result(x, flat, layout), ...); },
               t);
  }
};

template <class... Ts>
struct StructureTraits<std::tuple<Ts...>> : TupleLikeTraits<std::tuple<Ts...>, Ts...> {
  using Traced = std::tuple<traced_t<Ts>...>;
  static Traced make_traced(const std::tuple<Ts...>& t, ParameterFn parameter) {
    return std::apply(
        [&](const Ts&... x) { return Traced{StructureTraits<Ts>::make_traced(x, parameter)...}; },
        t);
  }
  // Spelled out: deduction (std::tuple{t}) would copy a lone inner tuple.
  using Rebuilt = std::tuple<typename StructureTraits<Ts>::Rebuilt...>;
  static Rebuilt rebuild(std::vector<Array>& outputs, size_t& position,
                         const std::vector<size_t>& layout, size_t& vector_index) {
    // Braced initialization evaluates left to right, matching flatten order.
    return Rebuilt{StructureTraits<Ts>::rebuild(outputs, position, layout, vector_index)...};
  }
};

template <class A, class B>
struct StructureTraits<std::pair<A, B>> : TupleLikeTraits<std::pair<A, B>, A, B> {
  using Traced = std::pair<traced_t<A>, traced_t<B>>;
  static Traced make_traced(const std::pair<A, B>& p, ParameterFn parameter) {
    return Traced{StructureTraits<A>::make_traced(p.first, parameter),
                  StructureTraits<B>::make_traced(p.second, parameter)};
  }
  using Rebuilt =
      std::pair<typename StructureTraits<A>::Rebuilt, typename StructureTraits<B>::Rebuilt>;
  static Rebuilt rebuild(std::vector<Array>& outputs, size_t& position,
                         const std::vector<size_t>& layout, size_t& vector_index) {
    return Rebuilt{StructureTraits<A>::rebuild(outputs, position, layout, vector_index),
                   StructureTraits<B>::rebuild(outputs, position, layout, vector_index)};
  }
};

template <class T, size_t N>
struct StructureTraits<std::array<T, N>> {
  using Element = StructureTraits<T>;
  using Traced = std::array<traced_t<T>, N>;
  static void append_key(CacheKey& key, const std::array<T, N>& a) {
    key.push(kStdArray);
    key.push(N);
    for (const T& x : a) Element::append_key(key, x);
  }
  static void collect_arrays(const std::array<T, N>& a, std::vector<Array>& out) {
    for (const T& x : a) Element::collect_arrays(x, out);
  }
  static void collect_tensors(const std::array<T, N>& a, std::vector<Tensor>& out) {
    for (const T& x : a) Element::collect_tensors(x, out);
  }
  static std::array<T, N> rebuild_like(const std::array<T, N>& like,
                                       const std::vector<Tensor>& flat, size_t& position) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::array<T, N>{Element::rebuild_like(like[I], flat, position)...};
    }(std::make_index_sequence<N>{});
  }
  static Traced make_traced(const std::array<T, N>& a, ParameterFn parameter) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return Traced{Element::make_traced(a[I], parameter)...};
    }(std::make_index_sequence<N>{});
  }
  static std::string describe(const std::array<T, N>& a) {
    std::string s = "[";
    for (size_t i = 0; i < N; ++i) s += (i ? ", " : "") + Element::describe(a[i]);
    return s + "]";
  }
  static void flatten_result(const std::array<T, N>& a, std::vector<Tensor>& flat,
                             std::vector<size_t>& layout) {
    for (const T& x : a) Element::flatten_result(x, flat, layout);
  }
  using Rebuilt = std::array<typename Element::Rebuilt, N>;
  static Rebuilt rebuild(std::vector<Array>& outputs, size_t& position,
                         const std::vector<size_t>& layout, size_t& vector_index) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return Rebuilt{
          ((void)I, Element::rebuild(outputs, position, layout, vector_index))...};
    }(std::make_index_sequence<N>{});
  }
};

// Whether an argument type holds Tensors (the call is then inside a trace).
template <class T>
inline constexpr bool contains_tensor = std::is_same_v<T, Tensor>;
template <class T>
inline constexpr bool contains_tensor<std::vector<T>> = contains_tensor<T>;
template <class T, size_t N>
inline constexpr bool contains_tensor<std::array<T, N>> = contains_tensor<T>;
template <class... Ts>
inline constexpr bool contains_tensor<std::tuple<Ts...>> = (contains_tensor<Ts> || ...);
template <class A, class B>
inline constexpr bool contains_tensor<std::pair<A, B>> = contains_tensor<A> || contains_tensor<B>;

template <class T>
std::string describe_argument(const T& v) {
  return StructureTraits<std::decay_t<T>>::describe(v);
}

// An argument with each Array's bytes copied (static values as they are):
// what a pullback keeps, so that writing to the caller's Arrays later does
// not change it.
template <class T>
T copy_arrays(const T& v);
template <class T>
std::vector<T> copy_arrays(const std::vector<T>& v);
template <class T, size_t N>
std::array<T, N> copy_arrays(const std::array<T, N>& v);
template <class... Ts>
std::tuple<Ts...> copy_arrays(const std::tuple<Ts...>& t);
template <class A, class B>
std::pair<A, B> copy_arrays(const std::pair<A, B>& p);

template <class T>
T copy_arrays(const T& v) {
  if constexpr (std::is_same_v<T, Array>) return v.copy();
  else return v;
}
template <class T>
std::vector<T> copy_arrays(const std::vector<T>& v) {
  std::vector<T> copied;
  for (const T& x : v) copied.push_back(copy_arrays(x));
  return copied;
}
template <class T, size_t N>
std::array<T, N> copy_arrays(const std::array<T, N>& v) {
  return std::apply([](const auto&... x) { return std::array<T, N>{copy_arrays(x)...}; }, v);
}
template <class... Ts>
std::tuple<Ts...> copy_arrays(const std::tuple<Ts...>& t) {
  return std::apply([](const Ts&... x) { return std::tuple<Ts...>{copy_arrays(x)...}; }, t);
}
template <class A, class B>
std::pair<A, B> copy_arrays(const std::pair<A, B>& p) {
  return {copy_arrays(p.first), copy_arrays(p.second)};
}

}  // namespace adjit::detail

#endif
