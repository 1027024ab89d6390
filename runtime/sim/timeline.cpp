#include "runtime/sim/timeline.h"

#include <fmt/format.h>

#include "runtime/research/canonical_json.h"

namespace gs::sim {

using research::Json;

TimelineFormat timeline_format_for(const std::string& path) {
  bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  return csv ? TimelineFormat::csv : TimelineFormat::jsonl;
}

namespace {

// CSV fields are quoted when they hold a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string seconds(int64_t ns) { return research::format_double(double(ns) / 1e9); }

}  // namespace

std::string timeline_text(const SimResult& r, TimelineFormat format, const std::string& run, bool header) {
  std::string out;
  const std::string lead = run.empty() ? "" : csv_field(run) + ",";
  if (format == TimelineFormat::csv && header)
    out = std::string(run.empty() ? "" : "run,") + "record,t_s,kind,subject,detail,site,it_w,nodes_in_jobs,nodes_spare,nodes_down\n";
  auto labelled = [&](Json j) {
    if (!run.empty()) j["run"] = run;
    return research::canonical_dump(j) + "\n";
  };
  size_t e = 0, u = 0;
  // Both series are already in time order (appended as the clock advances): merge them.
  while (e < r.timeline.size() || u < r.utilisation.size()) {
    bool take_event = u == r.utilisation.size() || (e < r.timeline.size() && r.timeline[e].t_ns <= r.utilisation[u].t_ns);
    if (take_event) {
      const auto& x = r.timeline[e++];
      if (format == TimelineFormat::csv)
        out += lead + fmt::format("event,{},{},{},{},,,,,\n", seconds(x.t_ns), csv_field(x.kind), csv_field(x.subject), csv_field(x.detail));
      else
        out += labelled({{"record", "event"}, {"t_s", double(x.t_ns) / 1e9}, {"kind", x.kind}, {"subject", x.subject}, {"detail", x.detail}});
    } else {
      const auto& x = r.utilisation[u++];
      if (format == TimelineFormat::csv)
        out += lead + fmt::format("utilisation,{},,,,{},{},{},{},{}\n", seconds(x.t_ns), csv_field(x.site), research::format_double(x.it_w),
                           x.nodes_in_jobs, x.nodes_spare, x.nodes_down);
      else
        out += labelled({{"record", "utilisation"}, {"t_s", double(x.t_ns) / 1e9}, {"site", x.site}, {"it_w", x.it_w},
                         {"nodes_in_jobs", x.nodes_in_jobs}, {"nodes_spare", x.nodes_spare}, {"nodes_down", x.nodes_down}});
    }
  }
  return out;
}

}  // namespace gs::sim
