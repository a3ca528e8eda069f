# frozen_string_literal: true
#
# A small Ruby worker (docs/workers.md, "Writing a worker in Ruby"): three benchmarks on the
# standard library, with the ruby_objects counter. perfengine starts it as
#   ruby workers/ruby/example_worker.rb
# (a spec's `worker = ["ruby", "{spec_dir}/../workers/ruby/example_worker.rb"]`).

require_relative "perfengine_worker"

worker = PerfEngine::Worker.new

words = Array.new(2_000) { |i| format("w%05d", (i * 7919) % 2_000) }
worker.benchmark("sort_words") { words.sort }

text = words.join(" ")
worker.benchmark("split_words") { text.split(" ") }

# A benchmark with a set-up of its own: the table is built once, before the hello.
worker.benchmark("count_words", setup: lambda {
  sample = (words * 5).shuffle(random: Random.new(1))
  -> { sample.tally }
})

worker.serve
