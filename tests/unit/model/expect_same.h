// Field-by-field equality of two RunResults, walked over the field tables of
// engine/model/fields.h: the tables json.cc writes and reads by, which the build checks cover
// every member of every struct (TablesCoverEveryMember). A member added to result.h is thus
// compared here as soon as the build lets it in; no hand-kept list can skip one. Doubles must
// match bit for bit. FullResult (full_result.h) sets every field unlike its default, and a
// test (json_test.cc) checks that it does, so a writer or reader that drops a field fails.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "engine/model/fields.h"
#include "engine/model/result.h"

namespace pe::testing {

template <typename T>
void Same(const T& a, const T& b, const std::string& path);

template <typename T>
void SameValue(const T& a, const T& b, const std::string& path) {
  if constexpr (std::is_same_v<T, double>) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b)) << path << ": " << a << " vs " << b;
  } else if constexpr (std::is_enum_v<T>) {
    EXPECT_EQ(static_cast<long long>(a), static_cast<long long>(b)) << path;
  } else if constexpr (fields::IsOptional<T>::value) {
    ASSERT_EQ(a.has_value(), b.has_value()) << path;
    if (a) Same(*a, *b, path);
  } else if constexpr (fields::IsVector<T>::value) {
    ASSERT_EQ(a.size(), b.size()) << path;
    for (std::size_t i = 0; i < a.size(); ++i) Same(a[i], b[i], path + "[" + std::to_string(i) + "]");
  } else if constexpr (fields::Described<T>) {
    std::apply(
        [&](const auto&... field) {
          (Same(a.*field.member, b.*field.member, path + "." + std::string(field.name)), ...);
        },
        fields::FieldsOf(fields::Tag<T>{}));
  } else {
    EXPECT_EQ(a, b) << path;
  }
}

template <typename T>
void Same(const T& a, const T& b, const std::string& path) {
  SameValue(a, b, path);
}

inline void Same(const model::RunResult& a, const model::RunResult& b) { Same(a, b, std::string("result")); }

// Marks in `set` each field path (indices left out) holding a value unlike its default
// somewhere in `value`, and lists every path reached in `all`.
template <typename T>
void FieldsSet(const T& value, const std::string& path, std::set<std::string>& set, std::set<std::string>& all) {
  if constexpr (fields::IsOptional<T>::value) {
    if (value) FieldsSet(*value, path, set, all);
  } else if constexpr (fields::IsVector<T>::value) {
    for (const auto& element : value) FieldsSet(element, path + "[]", set, all);
  } else if constexpr (fields::Described<T>) {
    std::apply(
        [&](const auto&... field) {
          (
              [&] {
                const std::string child = path + "." + std::string(field.name);
                all.insert(child);
                const auto& member = value.*field.member;
                using Member = std::remove_cvref_t<decltype(member)>;
                bool differs = false;
                if constexpr (fields::IsOptional<Member>::value) {
                  differs = member.has_value();
                } else if constexpr (fields::IsVector<Member>::value) {
                  differs = !member.empty();
                } else if constexpr (fields::Described<Member>) {
                  differs = true;  // judged by its own fields
                } else if constexpr (std::is_same_v<Member, double>) {
                  differs = std::bit_cast<std::uint64_t>(member) != std::bit_cast<std::uint64_t>(T{}.*field.member);
                } else {
                  differs = member != T{}.*field.member;
                }
                if (differs) set.insert(child);
                FieldsSet(member, child, set, all);
              }(),
              ...);
        },
        fields::FieldsOf(fields::Tag<T>{}));
  }
}

// The field paths of a RunResult that hold their default value everywhere in `value`: a
// round trip of `value` cannot show that the writer and reader carry them.
inline std::vector<std::string> FieldsLeftAtDefault(const model::RunResult& value) {
  std::set<std::string> set, all;
  FieldsSet(value, "result", set, all);
  std::vector<std::string> left;
  for (const std::string& path : all) {
    if (!set.count(path)) left.push_back(path);
  }
  return left;
}

}  // namespace pe::testing
