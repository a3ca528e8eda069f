# frozen_string_literal: true
#
# The 36 ruby/json benchmarks of bench.rb in one warm worker process (docs/ruby-json.md,
# "Worker mode"; the protocol: docs/workers.md). Run by perfengine in a worktree of a ruby/json
# checkout, as
#   ruby --disable-gems -Ipe-lib -Ilib worker.rb [KIND=DIR ...]
# where pe-lib/json/ext/{parser,generator}.so are that worktree's own build. Like bench.rb it
# refuses to start (exit 3, before its hello) unless exactly that build and that lib/ are what
# `require "json"` loaded, so Ruby's bundled json can never be measured by mistake.
#
# KIND=DIR names the directory of a json_docs fixture (benchmarks.rb, FIXTURES: small_hash,
# nested, api_1k, stream). A kind not given is looked for in $RUBY_JSON_FIXTURES/KIND, the
# directory `perfengine generate specs/ruby-json/fixtures.toml --out DIR` writes (the same
# generator, parameters and seed as specs/ruby-json.toml, so the same bytes). A benchmark whose
# fixture is found in neither is still in the hello and replies `failed ... fixture missing`.
#
# Every benchmark is set up before the hello, from its own Random.new(22): the same inputs as
# bench.rb's. A batch runs the body N times between the markers and the clocks
# (workers/ruby/perfengine_worker.rb); the counter ruby_objects is the growth of
# GC.stat(:total_allocated_objects) over the batch; the digest is the SHA-256 of the last
# result (the generated string, or Marshal.dump of the parsed value), as bench.rb writes it. Every
# benchmark runs its batches with GC disabled (bench.rb: the two _symbolize ones only); the
# collections between batches, outside the clocks, do that work. In a shared worker a collection
# inside a batch comes when the heap's limits, which every earlier benchmark moved, say so: plant
# 1 (a parser change) slowed parse_integers, whose code it did not touch, 1.03x on CPU time with
# GC on in its batches, and no benchmark it did not touch with GC off (docs/ruby-json.md). What a
# change allocates more shows in ruby_objects, exactly.

here = Dir.pwd
# The code layout (docs/ruby-json.md, "Code layouts"): pe-lib-K, K from 1 to 7, holds the same
# objects as pe-lib linked behind a pad, so every function lies elsewhere. A round's worker takes
# layout PERFENGINE_WORKER_SHIFT mod 8 (0 is pe-lib itself), so where a build's code landed is
# another draw each round and not a bias of every round; a counting worker (no shift) takes 0.
# RUBY_JSON_LAYOUT=K pins it.
layout = ENV["RUBY_JSON_LAYOUT"] || ENV["PERFENGINE_WORKER_SHIFT"]
layout = layout&.match?(/\A[0-9]+\z/) ? Integer(layout, 10) % 8 : 0
lib = layout.zero? ? "pe-lib" : "pe-lib-#{layout}"
$LOAD_PATH.unshift(File.join(here, lib)) unless layout.zero?

require "json"
require_relative "benchmarks"
require_relative "../../workers/ruby/perfengine_worker"

RubyJsonBenchmarks.check_build!(here, "worker.rb", lib: lib)

fixtures = {}
ARGV.each do |arg|
  kind, dir = arg.split("=", 2)
  unless dir && RubyJsonBenchmarks::FIXTURES.key?(kind)
    abort "worker.rb: #{arg.inspect} is not KIND=DIR with KIND one of #{RubyJsonBenchmarks::FIXTURES.keys.join(", ")}"
  end
  fixtures[kind] = dir
end
if (generated = ENV["RUBY_JSON_FIXTURES"])
  RubyJsonBenchmarks::FIXTURES.each_key do |kind|
    fixtures[kind] ||= File.join(generated, kind) if File.directory?(File.join(generated, kind))
  end
end

data_dir = File.join(here, "benchmark", "data")
worker = PerfEngine::Worker.new
RubyJsonBenchmarks::LIST.each do |b|
  worker.benchmark(b.name, setup: -> { b.body(data_dir, fixtures) }, gc: false,
                           digest: ->(result) { RubyJsonBenchmarks.digest(result).first })
end
worker.serve
