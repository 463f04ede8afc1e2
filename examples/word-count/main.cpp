// A word count with two pools spread over the isolates (docs/routers.md).
//
//   this thread --lines--> splitters (round-robin pool, one per isolate)
//                              --words--> counters (consistent-hash pool, two per isolate)
//                                             --tables--> collector
//
// The text is made here: kLines lines of words drawn from a vocabulary, the
// same every run. This thread tells each line to the `splitters` router; the
// splitter that gets it cuts it into words and tells each word to the
// `counters` router, keyed by the word itself (HashKeyed), so that one word
// is always counted by the same counter and the counts need no merging.
//
// The end: this thread tells the splitters Broadcast(Done). A splitter's Done
// follows every line this thread sent it (one sender, one receiver: order
// holds), so the splitter has cut them all; it tells the counters
// Broadcast(Done) in turn, which follows every word it sent each counter.
// A counter that has a Done from every splitter has every word meant for
// it, and sends its table to the collector, which merges them.
//
// The program counts the words again on this thread alone, checks that both
// counts agree word for word, prints the most frequent words and how long
// the pools took, and exits non-zero if anything differs.
//
//   example-word-count [lines]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <coreactor/ActorSystem.hpp>

using namespace coreactor;
using namespace std::chrono_literals;

using Counts = std::unordered_map<std::string, std::uint64_t>;

struct Line {
  std::string text;
};
struct Word {
  std::string text;
};
struct Done {};
struct Table {
  Counts counts;
};

// Cuts lines into words for the counters.
struct Splitter : Actor {
  explicit Splitter(ActorRef counters) : counters(counters) {}
  void receive(ReceiveContext& ctx) override {
    if (const Line* line = ctx.get<Line>()) {
      std::string_view rest = line->text;
      while (!rest.empty()) {
        const std::size_t space = rest.find(' ');
        const std::string_view word = rest.substr(0, space);
        if (!word.empty()) ctx.tell(counters, HashKeyed(word, Word{std::string(word)}));
        rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      }
    } else if (ctx.is<Done>()) {
      ctx.tell(counters, Broadcast(Done{}));
    }
  }
  ActorRef counters;
};

// Counts the words it is given; once every splitter is done, sends its table.
struct Counter : Actor {
  Counter(ActorRef collector, std::size_t splitters) : collector(collector), left(splitters) {}
  void receive(ReceiveContext& ctx) override {
    if (const Word* w = ctx.get<Word>()) {
      ++counts[w->text];
    } else if (ctx.is<Done>() && --left == 0) {
      ctx.tell(collector, Table{std::move(counts)});
    }
  }
  ActorRef collector;
  std::size_t left;
  Counts counts;
};

// Merges the counters' tables; the whole once all are in.
struct Collector : Actor {
  Collector(std::size_t counters, std::promise<Counts>* done) : left(counters), done(done) {}
  void receive(ReceiveContext& ctx) override {
    if (Table* t = ctx.get<Table>()) {
      for (auto& [word, n] : t->counts) all[word] += n;
      if (--left == 0) done->set_value(std::move(all));
    }
  }
  std::size_t left;
  std::promise<Counts>* done;
  Counts all;
};

// The text: lines of 6 to 20 words from a vocabulary of 2,000, Zipf-like
// (a few words are very common), from a fixed seed.
std::vector<std::string> makeText(std::size_t lines) {
  std::vector<std::string> vocabulary;
  for (int i = 0; i < 2000; ++i) {
    std::string w;
    for (int k = i; w.size() < 3 || k > 0; k /= 26) w += static_cast<char>('a' + k % 26);
    vocabulary.push_back(w);
  }
  std::uint64_t seed = 42;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed >> 33;
  };
  std::vector<std::string> text;
  text.reserve(lines);
  for (std::size_t l = 0; l < lines; ++l) {
    std::string line;
    const std::uint64_t words = 6 + next() % 15;
    for (std::uint64_t i = 0; i < words; ++i) {
      const std::uint64_t a = next() % vocabulary.size();
      const std::uint64_t b = next() % (a + 1);  // the smaller of two draws: skewed low
      if (!line.empty()) line += ' ';
      line += vocabulary[b];
    }
    text.push_back(std::move(line));
  }
  return text;
}

int main(int argc, char** argv) {
  const std::size_t lines = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  const std::vector<std::string> text = makeText(lines);

  auto system = ActorSystem::create("word-count");
  const std::size_t isolates = system->isolateCount();
  std::promise<Counts> done;
  std::future<Counts> result = done.get_future();
  // Two counters per isolate, one splitter per isolate.
  ActorRef collector =
      system->spawn<Collector>("collector", ActorOptions::create(), 2 * isolates, &done);
  ActorRef counters = system->spawnPool<Counter>(
      "counters", RouterOptions::consistentHash().withPerIsolate(2), collector, isolates);
  ActorRef splitters = system->spawnPool<Splitter>(
      "splitters", RouterOptions::roundRobin().withPerIsolate(1), counters);

  const auto start = std::chrono::steady_clock::now();
  for (const std::string& line : text) splitters.tell(Line{line});
  splitters.tell(Broadcast(Done{}));
  if (result.wait_for(120s) != std::future_status::ready) {
    std::fprintf(stderr, "word-count: no result within 120 s\n");
    return 1;
  }
  const Counts counted = result.get();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // The same count on this thread alone, to check against.
  Counts expected;
  std::uint64_t words = 0;
  for (const std::string& line : text) {
    std::string_view rest = line;
    while (!rest.empty()) {
      const std::size_t space = rest.find(' ');
      if (space != 0) {
        ++expected[std::string(rest.substr(0, space))];
        ++words;
      }
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
  }
  system->shutdown();

  std::vector<std::pair<std::string, std::uint64_t>> top(counted.begin(), counted.end());
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::printf("%zu lines, %llu words, %zu distinct, on %zu isolates: %.3f s (%.1f M words/s)\n",
              lines, static_cast<unsigned long long>(words), counted.size(), isolates, seconds,
              static_cast<double>(words) / seconds / 1e6);
  for (std::size_t i = 0; i < std::min<std::size_t>(5, top.size()); ++i) {
    std::printf("  %-6s %llu\n", top[i].first.c_str(),
                static_cast<unsigned long long>(top[i].second));
  }
  if (counted != expected) {
    std::fprintf(stderr, "word-count: the pools' count differs from the sequential one\n");
    return 1;
  }
  std::printf("the pools' count matches the sequential count word for word\n");
  return 0;
}
