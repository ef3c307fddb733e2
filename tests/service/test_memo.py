"""memo.small_lru: answers of small inputs are kept, of big inputs worked out every time."""

from __future__ import annotations

from evidence_grpc.memo import small_lru


def test_small_inputs_are_kept_and_big_ones_never():
    made = []

    @small_lru(items=2, most_bytes=4, size=lambda text: len(text))
    def shout(text: str) -> str:
        made.append(text)
        return text.upper()

    assert [shout("ab"), shout("ab"), shout("abcde"), shout("abcde")] == ["AB", "AB", "ABCDE", "ABCDE"]
    assert made == ["ab", "abcde", "abcde"]  # the big one is never kept
    shout("cd"), shout("ef")  # two more small ones push "ab" out (two items kept)
    shout("ab")
    assert made[-1] == "ab" and made.count("ab") == 2
    shout.cache_clear()
    shout("ef")
    assert made.count("ef") == 2
    assert shout.__name__ == "shout"


def test_a_kept_answer_is_found_without_working_out_the_size():
    sized = []

    def size(text: str) -> int:
        sized.append(text)
        return len(text)

    @small_lru(items=4, most_bytes=4, size=size)
    def shout(text: str) -> str:
        return text.upper()

    assert [shout("ab") for _ in range(5)] == ["AB"] * 5
    assert sized == ["ab"]  # asked once, when "ab" was first made
    assert [shout("abcde") for _ in range(2)] == ["ABCDE"] * 2
    assert sized == ["ab", "abcde", "abcde"]  # a big input is never kept, so asked each time
