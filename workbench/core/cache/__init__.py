"""The persistent caches (issue 14): ``fscache`` (folder listings, whole walks, a per-run stat
memo), ``parsestore`` (parse facts per SKILL.md) and ``resultcache`` (lint results per SKILL.md).
Each is one ``marshal`` file under ``appdirs.cache_dir()``, written atomically and ignored when
unreadable; see HACKING.md "Performance"."""
