// The RTP module. See Docs/Architecture.md.
