#include "runtime/buffer/state_index.h"

#include <fmt/format.h>

#include <boost/functional/hash.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <nanoflann.hpp>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

namespace gfn::buffer {
namespace {

/// |diff|^p, specialised for the p-norms torch.cdist special-cases (1 and 2); the same
/// expression as the brute-force reference, so accumulated sums agree bit for bit.
inline double minkowski_term(double diff, double p) {
  diff = std::abs(diff);
  return p == 2.0 ? diff * diff : p == 1.0 ? diff : std::pow(diff, p);
}

/// (Σ |diff|^p)^(1/p) from the accumulated sum.
inline double minkowski_root(double accumulated, double p) {
  return p == 2.0 ? std::sqrt(accumulated) : p == 1.0 ? accumulated : std::pow(accumulated, 1 / p);
}

/// nanoflann dataset adaptor: the distinct states, as doubles, row `id` at id * ndim.
/// `p` is the metric of the query in progress (the tree itself is metric-free).
struct Points {
  std::vector<double> coords;
  int ndim = 0;
  mutable double p = 2.0;  ///< set by each query; the tree itself does not depend on it
  std::size_t kdtree_get_point_count() const { return ndim ? coords.size() / ndim : 0; }
  double kdtree_get_pt(std::uint32_t id, std::size_t d) const {
    return coords[static_cast<std::size_t>(id) * ndim + d];
  }
  template <class BoundingBox>
  bool kdtree_get_bbox(BoundingBox&) const {
    return false;
  }
};

/// nanoflann distance: the accumulated Σ_k |a_k − b_k|^p (monotone in the p-norm and
/// additive over dimensions, which is what the tree's pruning needs).
struct MinkowskiTerms {
  using ElementType = double;
  using DistanceType = double;
  const Points& points;
  explicit MinkowskiTerms(const Points& source) : points(source) {}
  DistanceType evalMetric(const double* a, std::uint32_t id, std::size_t size,
                          DistanceType = -1) const {
    const double* b = points.coords.data() + static_cast<std::size_t>(id) * points.ndim;
    double acc = 0.0;
    for (std::size_t k = 0; k < size; ++k) acc += minkowski_term(a[k] - b[k], points.p);
    return acc;
  }
  template <class U, class V>
  DistanceType accum_dist(const U a, const V b, std::size_t) const {
    return minkowski_term(static_cast<double>(a) - static_cast<double>(b), points.p);
  }
};

using Tree = nanoflann::KDTreeSingleIndexDynamicAdaptor<MinkowskiTerms, Points, -1, std::uint32_t>;
using Key = std::vector<std::int64_t>;

constexpr std::size_t kMaxPoints = std::size_t{1} << 32;  // ids are uint32
constexpr std::int64_t kMinRemovedForRebuild = 1024;

/// The hash key of one value: an int64 itself; a float32 its bit pattern (-0 read as +0,
/// so that equal values are one key).
inline std::int64_t key_value(std::int64_t v) { return v; }
inline std::int64_t key_value(float v) {
  if (v == 0.f) v = 0.f;
  std::uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return static_cast<std::int64_t>(bits);
}

template <class T>
constexpr StateDtype dtype_of() {
  return std::is_same_v<T, float> ? StateDtype::kFloat32 : StateDtype::kInt64;
}

template <class T>
void assign_key(Key& key, const T* row, int ndim) {
  key.resize(static_cast<std::size_t>(ndim));
  for (int k = 0; k < ndim; ++k) key[static_cast<std::size_t>(k)] = key_value(row[k]);
}

void check_p(double p) {
  if (!(p > 0.0)) throw std::invalid_argument(fmt::format("novelty p-norm must be > 0, got {}", p));
}

}  // namespace

struct StateIndex::Impl {
  struct Slot {
    std::uint32_t id;    ///< row of Points::coords
    std::int64_t count;  ///< occurrences
  };
  std::unordered_map<Key, Slot, boost::hash<Key>> slots;
  Points points;
  std::unique_ptr<Tree> tree;
  std::int64_t removed = 0;  ///< tree points removed since its last rebuild

  /// Rebuilds the tree from the live states: int64 rows from their keys (the values),
  /// float rows from their coordinates in the old tree (their keys are bit patterns).
  void rebuild(int ndim, StateDtype dtype) {
    points.ndim = ndim;
    std::vector<double> old = std::move(points.coords);
    points.coords.clear();
    points.coords.reserve(slots.size() * static_cast<std::size_t>(ndim));
    std::uint32_t id = 0;
    for (auto& [state, slot] : slots) {
      if (dtype == StateDtype::kInt64) {
        for (std::int64_t v : state) points.coords.push_back(static_cast<double>(v));
      } else {  // float rows: their coordinates as stored at insert
        const auto first = old.begin() + static_cast<std::ptrdiff_t>(slot.id) * ndim;
        points.coords.insert(points.coords.end(), first, first + ndim);
      }
      slot.id = id++;
    }
    tree.reset();  // the constructor below adds every point of `points`
    tree = std::make_unique<Tree>(ndim, points, nanoflann::KDTreeSingleIndexAdaptorParams(),
                                  kMaxPoints - 1);
    removed = 0;
  }

  /// The accumulated distance of the nearest distinct state (not a duplicate of `q`).
  double nearest_accumulated(const double* q, double p) const {
    std::uint32_t id = 0;
    double acc = std::numeric_limits<double>::infinity();
    nanoflann::KNNResultSet<double, std::uint32_t> result(1);
    result.init(&id, &acc);
    points.p = p;  // the metric of this query (the index is thread-compatible)
    tree->findNeighbors(result, q, nanoflann::SearchParams());
    return acc;
  }
};

StateIndex::StateIndex() : impl_(std::make_unique<Impl>()) {}
StateIndex::~StateIndex() = default;
StateIndex::StateIndex(StateIndex&&) noexcept = default;
StateIndex& StateIndex::operator=(StateIndex&&) noexcept = default;

std::int64_t StateIndex::distinct() const { return static_cast<std::int64_t>(impl_->slots.size()); }

template <class T>
void StateIndex::check_dtype(const char* what) const {
  if (ndim_ != 0 && dtype_ != dtype_of<T>()) {
    throw std::invalid_argument(fmt::format("state index: {} of a {} row into an index of {} rows",
                                            what, config::enum_name(dtype_of<T>()),
                                            config::enum_name(dtype_)));
  }
}

template <class T>
void StateIndex::insert_row(const T* state, int ndim) {
  if (ndim < 1 || (ndim_ != 0 && ndim != ndim_)) {
    throw std::invalid_argument(fmt::format(
        "state index: insert of a state of ndim {} (index ndim {}; must be >= 1 and equal)", ndim,
        ndim_));
  }
  check_dtype<T>("insert");
  if (!impl_->tree) impl_->rebuild(ndim, dtype_of<T>());
  ndim_ = ndim;
  dtype_ = dtype_of<T>();
  Key key;
  assign_key(key, state, ndim);
  auto [it, fresh] = impl_->slots.try_emplace(std::move(key), Impl::Slot{0, 0});
  ++it->second.count;
  ++size_;
  if (!fresh) return;
  auto& coords = impl_->points.coords;
  const auto id = static_cast<std::uint32_t>(coords.size() / ndim);
  it->second.id = id;
  for (int k = 0; k < ndim; ++k) coords.push_back(static_cast<double>(state[k]));
  impl_->tree->addPoints(id, id);
}

void StateIndex::insert(const std::int64_t* state, int ndim) { insert_row(state, ndim); }
void StateIndex::insert(const float* state, int ndim) { insert_row(state, ndim); }

template <class T>
void StateIndex::erase_row(const T* state) {
  check_dtype<T>("erase");
  Key key;
  if (ndim_) assign_key(key, state, ndim_);
  const auto it = ndim_ ? impl_->slots.find(key) : impl_->slots.end();
  if (it == impl_->slots.end()) {
    throw std::logic_error("state index: erase of a state that is not stored");
  }
  --size_;
  if (--it->second.count > 0) return;
  impl_->tree->removePoint(it->second.id);
  impl_->slots.erase(it);
  ++impl_->removed;
  if (impl_->removed >= kMinRemovedForRebuild && impl_->removed > distinct()) {
    impl_->rebuild(ndim_, dtype_);
  }
}

void StateIndex::erase(const std::int64_t* state) { erase_row(state); }
void StateIndex::erase(const float* state) { erase_row(state); }

void StateIndex::clear() {
  impl_->slots.clear();
  size_ = 0;
  if (ndim_) impl_->rebuild(ndim_, dtype_);
}

template <class T>
std::int64_t StateIndex::count_row(const T* state) const {
  if (!ndim_ || dtype_ != dtype_of<T>()) return 0;
  Key key;
  assign_key(key, state, ndim_);
  const auto it = impl_->slots.find(key);
  return it == impl_->slots.end() ? 0 : it->second.count;
}

std::int64_t StateIndex::count(const std::int64_t* state) const { return count_row(state); }
std::int64_t StateIndex::count(const float* state) const { return count_row(state); }

template <class T>
double StateIndex::nearest_row(const T* query, double p) const {
  check_p(p);
  if (impl_->slots.empty()) return std::numeric_limits<double>::infinity();
  check_dtype<T>("query");
  if (count_row(query) > 0) return 0.0;
  std::vector<double> q(query, query + ndim_);
  return minkowski_root(impl_->nearest_accumulated(q.data(), p), p);
}

double StateIndex::nearest_distance(const std::int64_t* query, double p) const {
  return nearest_row(query, p);
}
double StateIndex::nearest_distance(const float* query, double p) const {
  return nearest_row(query, p);
}

template <class T>
double StateIndex::novelty_rows(const T* batch, std::int64_t n, int ndim, double p) const {
  check_p(p);
  if (impl_->slots.empty()) return static_cast<double>(n);
  if (n <= 0) return 0.0;
  if (ndim != ndim_) {
    throw std::invalid_argument(
        fmt::format("novelty: batch ndim {} differs from the buffer's {}", ndim, ndim_));
  }
  check_dtype<T>("novelty query");
  Key key(static_cast<std::size_t>(ndim));
  std::vector<double> q(static_cast<std::size_t>(ndim));
  double sum = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const T* row = batch + i * ndim;
    assign_key(key, row, ndim);
    if (impl_->slots.count(key)) continue;  // a stored duplicate: distance 0
    q.assign(row, row + ndim);
    sum += static_cast<float>(minkowski_root(impl_->nearest_accumulated(q.data(), p), p));
  }
  return sum;
}

double StateIndex::novelty_sum(const std::int64_t* batch, std::int64_t n, int ndim,
                               double p) const {
  return novelty_rows(batch, n, ndim, p);
}
double StateIndex::novelty_sum(const float* batch, std::int64_t n, int ndim, double p) const {
  return novelty_rows(batch, n, ndim, p);
}

}  // namespace gfn::buffer
