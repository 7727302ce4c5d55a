/* server: the Lua scripts the Redis backend runs (EVAL), each one atomic
 * in Redis, and the layout of the keys they keep.
 *
 *   animd:a:<id>                hash kind, name, skeleton (id or ""), count
 *                               (joints, vertices), duration (a clip's
 *                               seconds), text (the canonical native JSON),
 *                               unnamed ("1" once an upload with replace
 *                               moved its name away: it is then in no
 *                               animd:n: set nor animd:s: hash)
 *   animd:i:<kind>              sorted set of every id of kind (score 0:
 *                               ordered by id, paged with ZRANGEBYLEX)
 *   animd:n:<kind>:<name>       set of the ids of kind with that name
 *   animd:s:<kind>:<skeleton>   hash clip or mesh name -> id, in a skeleton
 *   animd:d:<kind>:<skeleton>   sorted set of a skeleton's clip or mesh ids
 *                               (score 0, paged with ZRANGEBYLEX; a plain
 *                               set an older version left is made one by
 *                               the first script that touches it)
 *
 * Changes are published on SRV_REDIS_CHANNEL: "drop <kind> <id>" when an
 * asset is deleted, "name <kind> <name>" when a name stops naming only
 * one asset (a lookup by that name must then find none), "add" when an
 * upload stored something new (a miss remembered may find it now). */
#ifndef ANIMD_SERVER_REDIS_SCRIPTS_H
#define ANIMD_SERVER_REDIS_SCRIPTS_H

#define SRV_REDIS_CHANNEL "animd:events"

/* ARGV: n, then kind, id, name, skeleton id ("" for a skeleton), count,
 * duration, text for each of n assets, skeletons first, then "1" for an
 * upload with replace (optional). Checks everything, then writes
 * everything. Returns {"ok", created (0 or 1), moved}, {"name_conflict",
 * message, at (clips[i].name or meshes[i].name: i counts that kind in the
 * upload)} or {"gone", message} (the skeleton of a clip or mesh is not
 * stored). An asset stored already is no conflict with itself.
 *
 * With replace, no name is a conflict; the names then move (the rule of
 * store.h, store_names_t): each older asset of the kind and name that
 * loses it leaves the animd:n: set and its skeleton's animd:s: hash and
 * gets unnamed = "1"; an asset of the upload that had lost its name takes
 * it back (an earlier export uploaded again); moved lists kind, name, old
 * id, new id for each name taken from another asset, and "name <kind>
 * <name>" is published once per name moved or given back, so every node
 * drops its cached copies of that name and loads the new owner. */
extern const char srv_redis_publish_script[];

/* ARGV: kind, id. Returns {"ok"}, {"not_found"} or {"conflict", clips,
 * meshes} (a skeleton that still has some). */
extern const char srv_redis_remove_script[];

/* ARGV: skeleton id. Removes the skeleton with its clips and meshes and
 * publishes "drop skeleton <id>" (every node drops them all). Returns
 * {"ok", clip ids, mesh ids} (sorted) or {"not_found"}. */
extern const char srv_redis_cascade_script[];

/* ARGV: kind, skeleton id or "", after (an id or ""), limit. At most
 * limit ids after `after`, in id order: of kind (without a skeleton) or
 * of the skeleton's clips or meshes (kind). Returns {ids looked at, {id,
 * name, skeleton, count, duration, ...}, the last id looked at} (ids
 * deleted meanwhile left out). */
extern const char srv_redis_list_script[];

/* ARGV: kind, id or name, skeleton id or "", listed (how many ids an
 * ambiguous answer lists). Returns {"ok", id, text, unnamed} for a
 * skeleton, {"ok", id, text, skeleton id, skeleton text, unnamed,
 * skeleton unnamed} for a clip or mesh (unnamed: "1" when a replace moved
 * the asset's name away, else ""), {"ambiguous", count, ids...} for a name
 * several assets share (the smallest `listed` ids, ascending), or
 * {"not_found"}. */
extern const char srv_redis_lookup_script[];

#endif
