#include "runtime/sim/network.h"
#include "runtime/sim/sim_time.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gs::sim {

uint32_t Network::add_resource(double capacity) {
  resources_.push_back({capacity, {}});
  return static_cast<uint32_t>(resources_.size() - 1);
}

void Network::advance(Flow& f, int64_t now) {
  if (f.rate > 0 && now > f.last) f.remaining = std::max(0.0, f.remaining - f.rate * double(now - f.last) / 1e9);
  f.last = now;
}

void Network::recompute(int64_t now, const std::vector<uint32_t>& touched, std::vector<Reschedule>& out) {
  auto& affected = affected_;
  affected.clear();
  for (uint32_t r : touched)
    for (uint32_t f : resources_[r].active) affected.push_back(f);
  std::sort(affected.begin(), affected.end(), [&](uint32_t a, uint32_t b) { return flows_[a].serial < flows_[b].serial; });
  affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
  for (uint32_t id : affected) {
    Flow& f = flows_[id];
    advance(f, now);
    double rate = std::numeric_limits<double>::infinity();
    for (uint32_t r : f.resources) rate = std::min(rate, resources_[r].capacity / double(resources_[r].active.size()));
    f.rate = rate;
    ++f.gen;
    int64_t transfer = f.remaining <= 0 ? 0 : ns_from_seconds(f.remaining / rate);
    out.push_back({id, f.gen, now + transfer});
  }
}

uint32_t Network::start(int64_t now, double bytes, std::vector<uint32_t> resources, int64_t latency_ns, uint32_t owner,
                        std::vector<Reschedule>& out) {
  std::sort(resources.begin(), resources.end());
  resources.erase(std::unique(resources.begin(), resources.end()), resources.end());
  uint32_t id = 0, gen = 0;
  if (free_.empty()) {
    id = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
    gen = flows_[id].gen + 1;
  }
  Flow& f = flows_[id];
  f = Flow{bytes, bytes, 0, now, latency_ns, std::move(resources), owner, gen, true, false, started_++};
  for (uint32_t r : f.resources) {  // keep each resource's list sorted (a reused id may be lower)
    auto& a = resources_[r].active;
    a.insert(std::upper_bound(a.begin(), a.end(), id), id);
  }
  if (f.resources.empty()) out.push_back({id, gen, now});
  else recompute(now, f.resources, out);
  return id;
}

void Network::detach(uint32_t id) {
  for (uint32_t r : flows_[id].resources) {
    auto& a = resources_[r].active;
    auto it = std::lower_bound(a.begin(), a.end(), id);
    if (it != a.end() && *it == id) a.erase(it);
  }
}

double Network::cancel(int64_t now, uint32_t id, std::vector<Reschedule>& out) {
  Flow& f = flows_[id];
  if (!f.active) return f.total;
  if (!f.in_flight) advance(f, now);
  f.active = false;
  ++f.gen;
  detach(id);
  recompute(now, f.resources, out);
  free_.push_back(id);
  return f.total - f.remaining;
}

bool Network::complete(int64_t now, uint32_t id, uint32_t gen, std::vector<Reschedule>& out) {
  Flow& f = flows_[id];
  if (!f.active || f.gen != gen) return false;
  if (!f.in_flight) {
    f.remaining = 0;
    f.in_flight = true;
    detach(id);
    recompute(now, f.resources, out);
    if (f.latency_ns > 0) {
      ++f.gen;
      out.push_back({id, f.gen, now + f.latency_ns});
      return false;
    }
  }
  f.active = false;
  ++f.gen;
  free_.push_back(id);
  return true;
}

}  // namespace gs::sim
