// A word count over MPI ranks. Every rank runs this program (mpirun -np N):
// each has a "counter" actor; rank 0 reads the text and tells each word to
// the counter of the rank its hash picks, then asks every counter for its
// tally and prints the total and the most frequent words.
//
//   mpirun --allow-run-as-root --oversubscribe -np 3 build/release/examples/example-cluster
#include <mpi.h>

#include <algorithm>
#include <cereal/types/map.hpp>
#include <cereal/types/string.hpp>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Cluster.hpp"
#include "coreactor/Remote.hpp"

using namespace coreactor;

/// A word to count (crosses through cereal: it holds a string).
struct Word {
  std::string text;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(text);
  }
};

/// "Send me your counts."
struct Report {
  int unused = 0;
};

/// A counter's words and counts.
struct Counts {
  std::map<std::string, long> words;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(words);
  }
};

class Counter final : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (const Word* w = ctx.get<Word>()) {
      ++counts_.words[w->text];
    } else if (ctx.is<Report>()) {
      ctx.reply(counts_);
    }
  }

 private:
  Counts counts_;
};

const char* const kText =
    "the quick brown fox jumps over the lazy dog the dog sleeps and the fox runs "
    "over the hill a fox and a dog meet on the hill and the quick fox wins";

int main(int argc, char** argv) {
  registerRemoteType<Word>("example.Word");
  registerRemoteType<Report>("example.Report");
  registerRemoteType<Counts>("example.Counts");
  auto cluster = Cluster::mpi(&argc, &argv);
  const int ranks = cluster->size();
  {
    auto system = ActorSystem::create(
        "wordcount", ActorSystemOptions::create().withIsolates(1).withCluster(cluster));
    system->spawn<Counter>("counter");
    // Every counter exists before rank 0 looks them up.
    MPI_Barrier(MPI_COMM_WORLD);
    if (system->rank() == 0) {
      std::vector<ActorRef> counters;
      for (int r = 0; r < ranks; ++r) counters.push_back(system->lookup(r, "counter").get());
      std::istringstream words(kText);
      long told = 0;
      for (std::string word; words >> word; ++told) {
        const std::size_t owner = std::hash<std::string>{}(word) % counters.size();
        counters[owner].tell(Word{word});
      }
      // A counter answers its Report after the words told before it: one
      // sender, one receiver, in order.
      std::map<std::string, long> total;
      long counted = 0;
      for (int r = 0; r < ranks; ++r) {
        const Counts counts = system
                                  ->ask<Counts>(counters[static_cast<std::size_t>(r)], Report{},
                                                std::chrono::seconds(10))
                                  .get();
        long here = 0;
        for (const auto& [word, n] : counts.words) {
          total[word] += n;
          here += n;
        }
        counted += here;
        std::printf("rank %d counted %ld words (%zu distinct)\n", r, here, counts.words.size());
      }
      std::vector<std::pair<long, std::string>> top;
      for (const auto& [word, n] : total) top.emplace_back(n, word);
      std::sort(top.rbegin(), top.rend());
      std::printf("%ld words told, %ld counted over %d ranks; most frequent:", told, counted,
                  ranks);
      for (std::size_t i = 0; i < std::min<std::size_t>(3, top.size()); ++i) {
        std::printf(" %s (%ld)", top[i].second.c_str(), top[i].first);
      }
      std::printf("\n");
    }
    // Every rank keeps its counter until rank 0 has its answers.
    MPI_Barrier(MPI_COMM_WORLD);
    system->shutdown();
  }
  return 0;
}
