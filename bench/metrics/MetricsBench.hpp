// metrics/tell/*: the message path while the metrics are and are not scraped.
#pragma once

namespace coreactor::bench {

void registerMetricsBenchmarks();

}  // namespace coreactor::bench
