# frozen_string_literal: true
#
# One benchmark of specs/ruby-json.toml: ruby bench.rb NAME OUT [FIXTURE]
#
# Run by perfengine in a worktree of a ruby/json checkout, as
#   ruby --disable-gems -Ipe-lib -Ilib bench.rb NAME OUT [FIXTURE]
# where pe-lib/json/ext/{parser,generator}.so are that worktree's own build (the spec's `build`).
# It refuses to run (exit 3) unless exactly that build and that lib/ are what `require "json"`
# loaded, so Ruby's bundled json can never be measured by mistake.
#
# What it does: builds the payload (outside the counted part), runs the benchmark's body
# ITERATIONS times, then
#   * writes `ruby_objects N objects` to $PERFENGINE_COUNTERS, where N is the growth of
#     GC.stat(:total_allocated_objects) over the loop only (an exact count: the same every run);
#   * writes OUT: the benchmark's name, the SHA-256 of its last result (the generated string, or
#     Marshal.dump of the parsed value, which does not depend on json's own generator) and its
#     size, so parity compares what both versions computed.
#
# Inputs: ruby/json's own benchmark/data (read from the worktree, never copied), perfengine's
# json_docs fixtures (FIXTURE, named in the spec) for the small payloads, and for the paths on
# their own (integers, decimals, escapes, long strings) text made here from Random.new(22): the
# same bytes on every run and for both versions.

require "json"
require "digest"
require "date"
require "stringio"

name, out, fixture = ARGV
abort "usage: bench.rb NAME OUT [FIXTURE]" unless name && out

# --- the build under test, and nothing else ------------------------------------------------
here = Dir.pwd
wanted = ["#{here}/pe-lib/json/ext/parser.so", "#{here}/pe-lib/json/ext/generator.so", "#{here}/lib/json/common.rb"]
loaded = $LOADED_FEATURES.grep(%r{/json/})
missing = wanted.reject { |f| loaded.include?(f) }
foreign = loaded.reject { |f| f.start_with?("#{here}/") }
unless missing.empty? && foreign.empty?
  warn "bench.rb: not the build of #{here}: missing #{missing.inspect}, foreign #{foreign.inspect}"
  exit 3
end

DATA_DIR = File.join(here, "benchmark", "data")
def data(file) = File.read(File.join(DATA_DIR, file))

def fixture_file(fixture, file)
  abort "bench.rb: this benchmark needs its fixture directory" unless fixture
  File.read(File.join(fixture, file))
end

RNG = Random.new(22)
ALPHABET = ("a".."z").to_a.freeze
def words(n) = Array.new(n) { ALPHABET.sample(random: RNG) * (1 + RNG.rand(8)) }

# JSON text built by hand (not with the json under test), so the parse inputs are fixed bytes.
def int_array_text = "[" + Array.new(1000) { RNG.rand(-2**40..2**40) }.join(",") + "]"
def decimal_array_text = "[" + Array.new(1000) { format("%.2f", RNG.rand * 1000 - 500) }.join(",") + "]"
def escaped_strings_text
  parts = Array.new(200) do
    "\"#{words(3).join(" ")}\\n\\t\\\"quoted\\\" back\\\\slash \\u00e9t\\u00e9 \\ud83d\\ude00 #{words(2).join(" ")}\""
  end
  "[" + parts.join(",") + "]"
end
def long_ascii_text = "[" + Array.new(40) { "\"" + words(400).join(" ")[0, 2000] + "\"" }.join(",") + "]"

# Values to generate (made only by the benchmark that uses them).
def escapes = Array.new(300) { "#{words(4).join(" ")}\n\t\"quoted\" back\\slash </script> #{words(3).join(" ")}" }
def ascii_but_one = Array.new(30) { s = words(400).join(" ")[0, 2000]; s[1000] = "é"; s }
def multibyte = Array.new(30) { "日本語のテキスト" * 125 }
def script_safe_strings = Array.new(300) { "#{words(4).join(" ")} </script> \u2028 line \u2029 #{words(2).join(" ")}" }
FIXED_TIME = Time.utc(2024, 5, 17, 12, 34, 56)
FIXED_DATE = Date.new(2024, 5, 17)

class Point
  def initialize(x, y) = (@x, @y = x, y)
  def to_json(*args) = { "x" => @x, "y" => @y }.to_json(*args)
end

class Label
  def initialize(text) = (@text = text)
  def to_s = "label:#{@text}"
end

def parse_all(text, opts = nil) = opts ? -> { JSON.parse(text, opts) } : -> { JSON.parse(text) }

# name => [iterations, -> { setup returning the body lambda }]
BENCHMARKS = {
  # --- parsing (16) ---
  "parse_twitter" => [4, -> { parse_all(data("twitter.json")) }],
  "parse_twitter_symbolize" => [4, -> { parse_all(data("twitter.json"), symbolize_names: true) }],
  "parse_twitter_freeze" => [4, -> { parse_all(data("twitter.json"), freeze: true) }],
  "parse_citm_catalog" => [1, -> { parse_all(data("citm_catalog.json")) }],
  "parse_canada" => [1, -> { parse_all(data("canada.json")) }],
  "parse_activitypub" => [27, -> { parse_all(data("activitypub.json")) }],
  "parse_small_hash" => [7_000, -> { parse_all(fixture_file(fixture, "docs.jsonl").lines.first) }],
  "parse_nested" => [1_000, -> { parse_all(fixture_file(fixture, "docs.jsonl").lines.first) }],
  "parse_api_1k" => [2_200, -> { parse_all(fixture_file(fixture, "docs.jsonl").lines.first) }],
  "parse_api_1k_symbolize" => [1_700, -> { parse_all(fixture_file(fixture, "docs.jsonl").lines.first, symbolize_names: true) }],
  "parse_api_1k_coder" => [2_000, -> {
    text = fixture_file(fixture, "docs.jsonl").lines.first
    coder = JSON::Coder.new
    -> { coder.load(text) }
  }],
  "parse_integers" => [300, -> { parse_all(int_array_text) }],
  "parse_decimals" => [240, -> { parse_all(decimal_array_text) }],
  "parse_escaped_strings" => [220, -> { parse_all(escaped_strings_text) }],
  "parse_long_ascii" => [280, -> { parse_all(long_ascii_text) }],
  "parse_resumable_stream" => [2, -> {
    text = fixture_file(fixture, "docs.jsonl")
    chunks = (0...text.bytesize).step(4096).map { |i| text.byteslice(i, 4096) }
    lambda do
      parser = JSON::ResumableParser.new
      docs = []
      chunks.each do |chunk|
        parser << chunk
        docs << parser.value while parser.parse
      end
      raise "stream truncated" unless parser.empty?
      docs
    end
  }],
  # --- generating (20) ---
  "generate_twitter" => [8, -> { obj = JSON.parse(data("twitter.json")); -> { JSON.generate(obj) } }],
  "generate_twitter_pretty" => [5, -> { obj = JSON.parse(data("twitter.json")); -> { JSON.pretty_generate(obj) } }],
  "generate_citm_catalog" => [4, -> { obj = JSON.parse(data("citm_catalog.json")); -> { JSON.generate(obj) } }],
  "generate_canada_points" => [4, -> {
    coords = JSON.parse(data("canada.json"))["features"][0]["geometry"]["coordinates"].flatten(1).first(10_000)
    -> { JSON.generate(coords) }
  }],
  "generate_api_1k" => [3_300, -> { obj = JSON.parse(fixture_file(fixture, "docs.jsonl").lines.first); -> { JSON.generate(obj) } }],
  "generate_api_1k_pretty" => [1_700, -> { obj = JSON.parse(fixture_file(fixture, "docs.jsonl").lines.first); -> { JSON.pretty_generate(obj) } }],
  "generate_api_1k_to_json" => [3_800, -> { obj = JSON.parse(fixture_file(fixture, "docs.jsonl").lines.first); -> { obj.to_json } }],
  "generate_api_1k_coder" => [3_200, -> {
    obj = JSON.parse(fixture_file(fixture, "docs.jsonl").lines.first)
    coder = JSON::Coder.new
    -> { coder.dump(obj) }
  }],
  "generate_api_1k_dump_io" => [2_200, -> {
    obj = JSON.parse(fixture_file(fixture, "docs.jsonl").lines.first)
    lambda do
      io = StringIO.new(+"")
      JSON.dump(obj, io)
      io.string
    end
  }],
  "generate_integers" => [240, -> { ints = Array.new(1000) { RNG.rand(-2**40..2**40) }; -> { JSON.generate(ints) } }],
  "generate_decimals" => [140, -> { floats = Array.new(1000) { (RNG.rand * 1000 - 500).round(2) }; -> { JSON.generate(floats) } }],
  "generate_escaped_strings" => [140, -> { v = escapes; -> { JSON.generate(v) } }],
  "generate_ascii_but_one" => [65, -> { v = ascii_but_one; -> { JSON.generate(v) } }],
  "generate_multibyte" => [40, -> { v = multibyte; -> { JSON.generate(v) } }],
  "generate_script_safe" => [100, -> { v = script_safe_strings; -> { JSON.generate(v, script_safe: true) } }],
  "generate_ascii_only" => [14, -> { v = multibyte; -> { JSON.generate(v, ascii_only: true) } }],
  "generate_to_json_objects" => [16, -> { pts = Array.new(1000) { |i| Point.new(i, -i) }; -> { JSON.generate(pts) } }],
  "generate_to_s_objects" => [18, -> { labels = Array.new(1000) { |i| Label.new(i) }; -> { JSON.generate(labels) } }],
  "generate_time" => [8, -> { times = Array.new(1000) { |i| FIXED_TIME + i }; -> { JSON.generate(times) } }],
  "generate_date" => [8, -> { dates = Array.new(1000) { |i| FIXED_DATE + i }; -> { JSON.generate(dates) } }],
}.freeze

iterations, setup = BENCHMARKS.fetch(name) { abort "bench.rb: unknown benchmark '#{name}' (known: #{BENCHMARKS.keys.join(", ")})" }
body = setup.call
result = nil

GC.start
# A symbolize_names parse makes dynamic Symbols; a GC in the loop can free some that the next
# parse then allocates again, so the object count varied by a few objects from run to run
# (parse_twitter_symbolize: 28,772 or 28,774). Without GC in the loop it repeats exactly; only
# these two benchmarks pay for it (their CPU time leaves out GC work).
GC.disable if name.end_with?("_symbolize")
# PERFENGINE_PROFILE (docs/counters.md, "Profiles a contender reports"): set only when perfengine
# profiles a regression. Every Ruby and C method the loop calls is counted with TracePoint (exact:
# the same every run) and written as `Class#method calls` lines, so a Ruby-level change (an extra
# Hash#transform_keys in JSON.parse) is named by its method, where callgrind sees only the VM.
profile_path = ENV["PERFENGINE_PROFILE"]
method_calls = Hash.new { |h, k| h[k] = Hash.new(0) }
tracer = profile_path && TracePoint.new(:call, :c_call) { |tp| method_calls[tp.defined_class][tp.method_id] += 1 }
cpu_before = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
before = GC.stat(:total_allocated_objects)
tracer&.enable
i = 0
while i < iterations
  result = body.call
  i += 1
end
tracer&.disable
allocated = GC.stat(:total_allocated_objects) - before
if profile_path # "JSON.parse 4", "Hash#transform_keys 4": singleton methods with a dot
  by_label = Hash.new(0)
  method_calls.each do |klass, methods|
    owner = klass&.singleton_class? ? "#{klass.inspect[/\A#<Class:(.+)>\z/, 1] || klass.inspect}." : "#{klass}#"
    methods.each { |id, n| by_label[(owner + id.to_s).gsub(/\s/, "_")] += n }
  end
  File.write(profile_path, by_label.sort.map { |label, n| "#{label} #{n}\n" }.join)
end
if ENV["RUBY_JSON_BENCH_TIME"] # for tuning ITERATIONS: the loop's own CPU time
  warn format("%s: %d iterations, %.1f ms CPU", name, iterations, (Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu_before) * 1000)
end

if (counters = ENV["PERFENGINE_COUNTERS"])
  File.write(counters, "ruby_objects #{allocated} objects\n")
end
bytes = result.is_a?(String) ? result : Marshal.dump(result)
File.write(out, "#{name} #{Digest::SHA256.hexdigest(bytes)} #{bytes.bytesize}\n")
