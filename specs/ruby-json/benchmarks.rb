# frozen_string_literal: true
#
# The 36 ruby/json benchmarks, defined once for both ways perfengine runs them
# (docs/ruby-json.md):
#   * bench.rb   (specs/ruby-json.toml): one benchmark per process, ITERATIONS times;
#   * worker.rb  (specs/ruby-json-worker.toml): every benchmark in one warm worker process, in
#     batches whose size perfengine chooses (docs/workers.md).
#
# Both require this file after `require "json"` and call RubyJsonBenchmarks.check_build! first.
#
# Inputs: ruby/json's own benchmark/data (read from the worktree, never copied), perfengine's
# json_docs fixtures for the small payloads (one directory per fixture kind, FIXTURES below),
# and for the paths on their own (integers, decimals, escapes, long strings) text made here from
# Random.new(22). Each benchmark's set-up gets a fresh Random.new(22), so its inputs are the
# same bytes whether it is set up alone (bench.rb) or after the 35 others (worker.rb), on every
# run and for both versions.

require "date"
require "digest"
require "stringio"

# A value with its own to_json (generate_to_json_objects).
class Point
  def initialize(x, y) = (@x, @y = x, y)
  def to_json(*args) = { "x" => @x, "y" => @y }.to_json(*args)
end

# A value JSON generates through to_s (generate_to_s_objects).
class Label
  def initialize(text) = (@text = text)
  def to_s = "label:#{@text}"
end

module RubyJsonBenchmarks
  # The json_docs fixtures the benchmarks read (their parameters as in specs/ruby-json.toml).
  FIXTURES = {
    "small_hash" => "documents = 1, fields = 8, depth = 0, numbers = \"integers\"",
    "nested" => "documents = 1, fields = 8, depth = 5",
    "api_1k" => "documents = 1, fields = 10, depth = 2",
    "stream" => "documents = 600, fields = 8, depth = 2",
  }.freeze

  FIXED_TIME = Time.utc(2024, 5, 17, 12, 34, 56)
  FIXED_DATE = Date.new(2024, 5, 17)

  # Refuses (exit 3, a line on stderr naming `script`) unless `require "json"` loaded exactly the
  # build of the worktree `here`: LIB/json/ext/{parser,generator}.so (LIB: pe-lib, or the code
  # layout pe-lib-K worker.rb chose) and lib/json/common.rb, and no json file from anywhere else
  # (Ruby's bundled json, a gem).
  def self.check_build!(here, script, lib: "pe-lib")
    wanted = ["#{here}/#{lib}/json/ext/parser.so", "#{here}/#{lib}/json/ext/generator.so", "#{here}/lib/json/common.rb"]
    loaded = $LOADED_FEATURES.grep(%r{/json/})
    missing = wanted.reject { |f| loaded.include?(f) }
    foreign = loaded.reject { |f| f.start_with?("#{here}/") }
    return if missing.empty? && foreign.empty?

    warn "#{script}: not the build of #{here}: missing #{missing.inspect}, foreign #{foreign.inspect}"
    exit 3
  end

  # What a benchmark's set-up block is given (as `src`): its inputs, each made from this benchmark's own
  # Random.new(22).
  class Inputs
    ALPHABET = ("a".."z").to_a.freeze

    # data_dir: the worktree's benchmark/data; kind: the fixture kind this benchmark reads (nil:
    # none); fixture: its directory (nil: not given).
    def initialize(data_dir, kind, fixture)
      @data_dir = data_dir
      @kind = kind
      @fixture = fixture
      @rng = Random.new(22)
    end

    def data(file) = File.read(File.join(@data_dir, file))

    def fixture_file(file)
      raise ArgumentError, "fixture missing: #{@kind}=DIR, json_docs with #{FIXTURES[@kind]}" unless @fixture

      File.read(File.join(@fixture, file))
    end

    def words(n) = Array.new(n) { ALPHABET.sample(random: @rng) * (1 + @rng.rand(8)) }

    # JSON text built by hand (not with the json under test), so the parse inputs are fixed bytes.
    def int_array_text = "[" + Array.new(1000) { @rng.rand(-2**40..2**40) }.join(",") + "]"
    def decimal_array_text = "[" + Array.new(1000) { format("%.2f", @rng.rand * 1000 - 500) }.join(",") + "]"

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
    def rand_int = @rng.rand(-2**40..2**40)
    def rand_decimal = (@rng.rand * 1000 - 500).round(2)

    def parse_all(text, opts = nil) = opts ? -> { JSON.parse(text, opts) } : -> { JSON.parse(text) }
  end

  # One benchmark: bench.rb's iteration count, the fixture kind it reads (nil: none), whether GC
  # is off in its loop, and its set-up (given an Inputs; returns the body lambda).
  Benchmark = Struct.new(:name, :iterations, :fixture, :gc, :setup, keyword_init: true) do
    # The body lambda, its inputs made in `data_dir` and `fixtures` (kind => directory).
    def body(data_dir, fixtures)
      setup.call(Inputs.new(data_dir, fixture, fixture && fixtures[fixture]))
    end
  end

  LIST = []
  def self.define(name, iterations, fixture: nil, &setup)
    # A symbolize_names parse makes dynamic Symbols; a GC in the loop can free some that the next
    # parse then allocates again, so the object count varied by a few objects from run to run
    # (parse_twitter_symbolize: 28,772 or 28,774). Without GC in the loop it repeats exactly; only
    # these two benchmarks pay for it (their CPU time leaves out GC work).
    LIST << Benchmark.new(name: name, iterations: iterations, fixture: fixture, gc: !name.end_with?("_symbolize"),
                          setup: setup)
  end

  # --- parsing (16) ---
  define("parse_twitter", 4) { |src| src.parse_all(src.data("twitter.json")) }
  define("parse_twitter_symbolize", 4) { |src| src.parse_all(src.data("twitter.json"), symbolize_names: true) }
  define("parse_twitter_freeze", 4) { |src| src.parse_all(src.data("twitter.json"), freeze: true) }
  define("parse_citm_catalog", 1) { |src| src.parse_all(src.data("citm_catalog.json")) }
  define("parse_canada", 1) { |src| src.parse_all(src.data("canada.json")) }
  define("parse_activitypub", 27) { |src| src.parse_all(src.data("activitypub.json")) }
  define("parse_small_hash", 7_000, fixture: "small_hash") { |src| src.parse_all(src.fixture_file("docs.jsonl").lines.first) }
  define("parse_nested", 1_000, fixture: "nested") { |src| src.parse_all(src.fixture_file("docs.jsonl").lines.first) }
  define("parse_api_1k", 2_200, fixture: "api_1k") { |src| src.parse_all(src.fixture_file("docs.jsonl").lines.first) }
  define("parse_api_1k_symbolize", 1_700, fixture: "api_1k") do |src|
    src.parse_all(src.fixture_file("docs.jsonl").lines.first, symbolize_names: true)
  end
  define("parse_api_1k_coder", 2_000, fixture: "api_1k") do |src|
    text = src.fixture_file("docs.jsonl").lines.first
    coder = JSON::Coder.new
    -> { coder.load(text) }
  end
  define("parse_integers", 300) { |src| src.parse_all(src.int_array_text) }
  define("parse_decimals", 240) { |src| src.parse_all(src.decimal_array_text) }
  define("parse_escaped_strings", 220) { |src| src.parse_all(src.escaped_strings_text) }
  define("parse_long_ascii", 280) { |src| src.parse_all(src.long_ascii_text) }
  define("parse_resumable_stream", 2, fixture: "stream") do |src|
    text = src.fixture_file("docs.jsonl")
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
  end

  # --- generating (20) ---
  define("generate_twitter", 8) { |src| obj = JSON.parse(src.data("twitter.json")); -> { JSON.generate(obj) } }
  define("generate_twitter_pretty", 5) { |src| obj = JSON.parse(src.data("twitter.json")); -> { JSON.pretty_generate(obj) } }
  define("generate_citm_catalog", 4) { |src| obj = JSON.parse(src.data("citm_catalog.json")); -> { JSON.generate(obj) } }
  define("generate_canada_points", 4) do |src|
    coords = JSON.parse(src.data("canada.json"))["features"][0]["geometry"]["coordinates"].flatten(1).first(10_000)
    -> { JSON.generate(coords) }
  end
  define("generate_api_1k", 3_300, fixture: "api_1k") do |src|
    obj = JSON.parse(src.fixture_file("docs.jsonl").lines.first)
    -> { JSON.generate(obj) }
  end
  define("generate_api_1k_pretty", 1_700, fixture: "api_1k") do |src|
    obj = JSON.parse(src.fixture_file("docs.jsonl").lines.first)
    -> { JSON.pretty_generate(obj) }
  end
  define("generate_api_1k_to_json", 3_800, fixture: "api_1k") do |src|
    obj = JSON.parse(src.fixture_file("docs.jsonl").lines.first)
    -> { obj.to_json }
  end
  define("generate_api_1k_coder", 3_200, fixture: "api_1k") do |src|
    obj = JSON.parse(src.fixture_file("docs.jsonl").lines.first)
    coder = JSON::Coder.new
    -> { coder.dump(obj) }
  end
  define("generate_api_1k_dump_io", 2_200, fixture: "api_1k") do |src|
    obj = JSON.parse(src.fixture_file("docs.jsonl").lines.first)
    lambda do
      io = StringIO.new(+"")
      JSON.dump(obj, io)
      io.string
    end
  end
  define("generate_integers", 240) { |src| ints = Array.new(1000) { src.rand_int }; -> { JSON.generate(ints) } }
  define("generate_decimals", 140) { |src| floats = Array.new(1000) { src.rand_decimal }; -> { JSON.generate(floats) } }
  define("generate_escaped_strings", 140) { |src| v = src.escapes; -> { JSON.generate(v) } }
  define("generate_ascii_but_one", 65) { |src| v = src.ascii_but_one; -> { JSON.generate(v) } }
  define("generate_multibyte", 40) { |src| v = src.multibyte; -> { JSON.generate(v) } }
  define("generate_script_safe", 100) { |src| v = src.script_safe_strings; -> { JSON.generate(v, script_safe: true) } }
  define("generate_ascii_only", 14) { |src| v = src.multibyte; -> { JSON.generate(v, ascii_only: true) } }
  define("generate_to_json_objects", 16) { |src| pts = Array.new(1000) { |i| Point.new(i, -i) }; -> { JSON.generate(pts) } }
  define("generate_to_s_objects", 18) { |src| labels = Array.new(1000) { |i| Label.new(i) }; -> { JSON.generate(labels) } }
  define("generate_time", 8) { |src| times = Array.new(1000) { |i| FIXED_TIME + i }; -> { JSON.generate(times) } }
  define("generate_date", 8) { |src| dates = Array.new(1000) { |i| FIXED_DATE + i }; -> { JSON.generate(dates) } }

  LIST.freeze
  BY_NAME = LIST.to_h { |b| [b.name, b] }.freeze

  # The digest of one result, the same for two json builds that agree: the SHA-256 of the
  # generated string, or of Marshal.dump of the parsed value (which does not depend on json's
  # own generator), and the size of those bytes.
  def self.digest(result)
    bytes = result.is_a?(String) ? result : Marshal.dump(result)
    [Digest::SHA256.hexdigest(bytes), bytes.bytesize]
  end
end
