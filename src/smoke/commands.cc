#include "smoke/commands.h"

#include "smoke/smoke_rules.h"
#include "wheelcheck_version.h"

namespace wc::smoke {

const Policy& empty_policy() {
  static const Policy p;
  return p;
}

ItemResult gpu_required_item(const std::string& why) {
  ItemResult item;
  item.path = "gpu";
  FindingSink s(empty_policy(), smoke_rules());
  s.add("WS001", "--require-gpu: " + why);
  item.findings = s.take();
  return item;
}

RunReport smoke_report(const std::string& items_key) {
  RunReport report;
  report.tool = "wheelsmoke";
  report.version = WHEELCHECK_VERSION;
  report.items_key = items_key;
  report.rules = smoke_rules();
  return report;
}

}  // namespace wc::smoke
