//! Risk briefs: from list updates and from RSS/Atom feeds.
