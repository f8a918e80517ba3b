extension Y4MError {
    /// The errno of a `.system` error.
    var errno: Int32? {
        if case .system(_, let code) = self { return code }
        return nil
    }
}
