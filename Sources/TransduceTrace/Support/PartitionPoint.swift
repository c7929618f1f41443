extension RandomAccessCollection {
    /// The index of the first element for which `isAfter` holds, or `endIndex` when none does, in
    /// O(log n) calls of `isAfter`.
    ///
    /// The collection must be partitioned by `isAfter`: every element for which it is false
    /// comes before every element for which it is true (ascending positions, ids or times with
    /// a threshold test are). Sorted arrays of the streaming analyses, the index's checkpoints
    /// and the gate's holds are searched this way, so the bounds arithmetic lives in one place.
    func partitionPoint(where isAfter: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let mid = index(low, offsetBy: half)
            if try isAfter(self[mid]) {
                count = half
            } else {
                low = index(after: mid)
                count -= half + 1
            }
        }
        return low
    }
}
