"""memo.small_lru: answers of small inputs are kept, of big inputs worked out every time;
memo.Share: what one answer may add to a BytesLru."""

from __future__ import annotations

from evidence_grpc.memo import BytesLru, Share, small_lru


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


def test_one_answer_adds_at_most_half_of_what_is_kept():
    kept = BytesLru(max_bytes=100)
    kept.put("read alone", "x", 30)
    share = Share(kept)
    for item in range(10):
        share.put(item, "y", 20)
    assert "read alone" in kept and [item for item in range(10) if item in kept] == [0, 1]
    assert kept.bytes == 70 and share.left == 10
    Share(kept).put(10, "z", 51)  # more than a share: not kept at all
    assert 10 not in kept and kept.bytes == 70


def test_an_answer_never_pushes_out_what_it_read_or_kept_itself():
    kept = BytesLru(max_bytes=100)
    kept.put("alone", "x", 20)
    listed = range(0, 15)  # a list of 15 items of 10 bytes, read three times
    for _ in range(3):
        share = Share(kept)
        for item in listed:
            if kept.get(item) is None:
                share.put(item, "y", 10)
    # the first read keeps 5 (its share), the second 5 more (pushing out "alone"), the third
    # none: each would push out an item it read
    assert [key for key in ("alone", *listed) if key in kept] == list(range(10))
    assert kept.bytes == 100
