// JSON forms of the engine's typed stats and plans, for the server's control endpoints (GET /v1/stats,
// /v1/cache/status, POST /v1/cache/rebuild) and `ft ctl`. Field names are the C++ field names.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ft/engine.h"
#include "ft/plan.h"

namespace ft::serve {

nlohmann::ordered_json stats_to_json(const EngineStats& s);
nlohmann::ordered_json plan_to_json(const MemoryPlan& p);
// The cache part of the stats: plan, expert cache, KV pages, VRAM.
nlohmann::ordered_json cache_status_to_json(const EngineStats& s);
nlohmann::ordered_json rebuild_result_to_json(const RebuildResult& r);

}  // namespace ft::serve
