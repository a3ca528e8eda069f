// Unresolved claims: exit 3 by default (docs/exit-codes.md), what each would need, and the
// policy a CI job picks when it wants one of the old meanings (--unresolved=fail|pass|exit3,
// or PERFENGINE_UNRESOLVED).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/model/result.h"

namespace pe::gate {

// exit3 (the default): unresolved is its own code, 3. fail: it is exit 1, as a missed
// threshold. pass: it is exit 0; the report still says which claims were not shown.
enum class UnresolvedPolicy { kExit3, kFail, kPass };

// "exit3", "fail" or "pass"; nullopt for anything else.
std::optional<UnresolvedPolicy> ParseUnresolvedPolicy(std::string_view text);

// Why a check was left unresolved and what would resolve it: the rounds its rounds-needed
// figure asks for against [run] max_rounds, the busiest load the run saw, and the bar to
// loosen, e.g. "w: min_speedup unresolved: about 48 rounds would resolve it, [run] max_rounds
// is 30: raise max_rounds; the machine was busy (load average up to 3.2 on 2 cores): a
// quieter runner narrows the spread; or loosen min_speedup (now 1.00x)".
std::string UnresolvedAdvice(const model::RunResult& result, const model::Check& check);

// The summary line of exit 3: "UNRESOLVED: 2 checks could not be shown either way at 95%
// confidence (exit 3; --unresolved=fail or pass to count them otherwise)".
std::string UnresolvedSummary(const model::Verdict& verdict, double confidence);

// Claims that had to be shown and were not (unresolved, counted against the run).
int CountUnresolved(const model::Verdict& verdict);

// Applies `policy` to a verdict of exit 3 (anything else is left alone): fail makes it exit 1,
// pass exit 0 with a note naming the policy. `by` names what chose it ("--unresolved=pass").
void ApplyUnresolvedPolicy(model::Verdict& verdict, UnresolvedPolicy policy, const std::string& by);

}  // namespace pe::gate
