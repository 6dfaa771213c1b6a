// longnames.cc — MPI calls in C++ functions whose demangled names are several KiB long
// (templates over long type lists), called in turns with short-named ones, for
// t_callpath_longnames.sh: every frame of every path must come out whole, each call's path
// main/<function>/<MPI call>, one symbolizer batch holding long and short names alike.
#include <mpi.h>
#include <cstdio>
#include <utility>

template <int N> struct Tag {};
template <class... T> struct TypeList {};

template <class Seq> struct ListOf;
template <int... Is> struct ListOf<std::integer_sequence<int, Is...>> {
    using type = TypeList<Tag<Is>...>;
};
template <int N> using Long = typename ListOf<std::make_integer_sequence<int, N>>::type;

static volatile int sink;

// demangled: "void exchange_long<TypeList<Tag<0>, ..., Tag<N-1> > >(TypeList<...> const&)", twice the list
template <class T> __attribute__((noinline)) void exchange_long(T const &)
{
    int x = sink, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sink = y;
}

__attribute__((noinline)) void short_a() { MPI_Barrier(MPI_COMM_WORLD); sink++; }
__attribute__((noinline)) void short_b() { MPI_Barrier(MPI_COMM_WORLD); sink++; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    short_a();
    exchange_long(Long<500>{}); // about 5.9 KiB
    short_b();
    exchange_long(Long<420>{}); // about 4.9 KiB
    short_a();
    exchange_long(Long<500>{});
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    if (rank == 0)
        std::printf("done\n");
    return 0;
}
