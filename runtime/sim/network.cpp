#include "runtime/sim/network.h"

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
  std::vector<uint32_t> affected;
  for (uint32_t r : touched)
    for (uint32_t f : resources_[r].active) affected.push_back(f);
  std::sort(affected.begin(), affected.end());
  affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
  for (uint32_t id : affected) {
    Flow& f = flows_[id];
    advance(f, now);
    double rate = std::numeric_limits<double>::infinity();
    for (uint32_t r : f.resources) rate = std::min(rate, resources_[r].capacity / double(resources_[r].active.size()));
    f.rate = rate;
    ++f.gen;
    int64_t transfer = f.remaining <= 0 ? 0 : static_cast<int64_t>(std::ceil(f.remaining / rate * 1e9));
    out.push_back({id, f.gen, now + transfer});
  }
}

uint32_t Network::start(int64_t now, double bytes, std::vector<uint32_t> resources, int64_t latency_ns, uint32_t owner,
                        std::vector<Reschedule>& out) {
  uint32_t id = static_cast<uint32_t>(flows_.size());
  std::sort(resources.begin(), resources.end());
  resources.erase(std::unique(resources.begin(), resources.end()), resources.end());
  flows_.push_back({bytes, bytes, 0, now, latency_ns, resources, owner, 0, true, false});
  for (uint32_t r : resources) resources_[r].active.push_back(id);  // ids only grow, so the lists stay sorted
  if (resources.empty()) out.push_back({id, 0, now});
  else recompute(now, resources, out);
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
  return true;
}

}  // namespace gs::sim
