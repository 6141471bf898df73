//! A world of characters (docs/architecture.md "Worlds"; issue #49): the
//! world creates and owns its characters, updates all of them (or a list)
//! in one call or in ranges a job system runs on its threads, and can hold
//! the chain stage's cost to a CPU budget.
//!
//! Today the world runs on the batch machinery of
//! [`crate::update_batch`]: up to [`crate::BATCH_CHAINS_TOGETHER`]
//! consecutive items share the chain kernel's lanes, and each character
//! keeps its own particles. The API does not depend on that: a later layout
//! (the particles of every chain resident in the world, in lane order)
//! changes nothing here.
//!
//! # The budget
//!
//! [`World::set_budget`] takes a number of joint-substeps per update (a
//! chain of 6 joints at 120 substeps per second and 60 updates per second
//! costs 12). Without one every character returns to `Full`, one level
//! per update. With one, [`World::plan`] chooses each listed character's
//! [`Level`] for this update by a deterministic rule:
//!
//! 0. A character's cost at a level is the joint-substeps its chain clocks
//!    would run at that level over the next four updates of this update's
//!    dt, divided by four (the clocks' own substep loop; settle-phase
//!    repeats, which run only once the input rests, are not foreseen). A
//!    held character costs nothing. The budget holds for that average: at
//!    `Quarter` and 60 updates per second a chain steps every other update.
//! 1. A character pinned with [`World::pin_level`] keeps its level (its
//!    cost counts). Every other character may move at most one level from
//!    the level of its last planned update, and starts at the most
//!    restored level it may take (one better than its last, or `Full`).
//! 2. While the total cost of the listed characters exceeds the budget,
//!    passes for `Half`, then `Quarter`, then `Held` walk the characters
//!    from the least important to the most important (the item's
//!    `importance`: larger is more important, e.g. closeness to the
//!    camera; equal importances: the higher slot first) and move each
//!    character that is below the pass's level, and may reach it, to it,
//!    stopping as soon as the total fits. A character whose chains cost
//!    nothing at `Full` (none, switched off, asleep, or before its first
//!    update) is not moved.
//!
//! So, within the one-level step, everyone is halved before anyone is
//! quartered, and quartered before anyone is held; inputs that are the
//! same give the same levels.
//!
//! `Half` and `Quarter` run the chains' substeps 2 and 4 times as long
//! (the same time simulated with fewer substeps). `Held` runs no chain:
//! the chain joints keep the local rotations the character last showed;
//! when a held character is released the particles of a chain on its rest
//! arc are seeded on that held pose, at rest, and those of a chain resting
//! on its input's pose on the input's pose (the blend turns it there).
//!
//! A level change is blended. From a running level, on the update of the
//! change the character also runs its previous level, alone, from a
//! snapshot it then restores (that update costs both levels; the plan
//! does not count the extra run, the update's
//! [`UpdateInfo::joint_substeps`] does), shows exactly what the previous
//! level shows, and turns its chain joints from there to the new level's
//! over [`BLEND_UPDATES`] updates; entering `Held`, it holds exactly that.
//! Released from `Held`, it starts from the held pose and blends from it.
//!
//! The snapshot and what the previous level showed (its chain joints'
//! rotations; that run writes no output, so an in-place C update's input
//! is still there for the second run) live in an arena the world shares
//! among its characters, an [`ARENA_SHARE`]th of what they would need
//! together (at least what the largest needs). After the levels are
//! chosen, the plan gives the changes that run the previous level their
//! room: degradations first, least important first, then restorations,
//! most important first. A change that does not fit keeps the level it
//! had for this update and is planned again on the next. So on an update
//! at most about an [`ARENA_SHARE`]th of the characters pay for a second
//! run, and a crowd of like characters takes at most [`ARENA_SHARE`]
//! updates per level step; a world keeps per character only one rotation
//! per chain joint besides the character (the held pose or the blend's
//! offset: a held character never blends).

use std::cell::UnsafeCell;
use std::sync::Arc;

use crate::character::{Character, CharacterOptions, FrameInput, UpdateInfo};
use crate::error::Error;
use crate::math::Transform;
use crate::rig::Rig;
use crate::solvers::chain_stage;
use glam::Quat;

/// A character's place in a [`World`]: its slot and the slot's generation.
/// An id of a removed character is refused (the generation moved on), even
/// after its slot holds another character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CharacterId {
    index: u32,
    generation: u32,
}

impl CharacterId {
    /// The slot (stable while the character lives; reused after removal).
    #[must_use]
    pub fn slot(self) -> u32 {
        self.index
    }
}

/// How much of its chain stage a character runs this update (the budget's
/// degradation levels, in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[repr(u32)]
pub enum Level {
    /// Every substep.
    #[default]
    Full = 0,
    /// Substeps twice as long: half the joint-substeps.
    Half = 1,
    /// Substeps four times as long: a quarter of the joint-substeps.
    Quarter = 2,
    /// No chain stage: the chain joints keep their last local rotations.
    Held = 3,
}

impl Level {
    fn from_index(i: u8) -> Level {
        match i {
            0 => Level::Full,
            1 => Level::Half,
            2 => Level::Quarter,
            _ => Level::Held,
        }
    }
}

/// One character's update in a [`World`].
pub struct WorldItem<'a> {
    pub id: CharacterId,
    pub input: FrameInput<'a>,
    pub output: &'a mut [Transform],
    /// The character's world transform for this update (else the last one
    /// given; [`Character::set_world_transform`]).
    pub world: Option<Transform>,
    /// How important the character is for the budget: larger is more
    /// important (closeness to the camera, e.g. `1 / (1 + distance)` or
    /// `-distance`). Must be finite. Not the chains' LOD importance
    /// ([`Character::set_importance`]).
    pub importance: f32,
    /// Written by [`World::plan`] and the update; `Ok` before.
    pub result: Result<UpdateInfo, Error>,
    /// The slot and plan number [`World::plan`] gave this item.
    planned: Option<(u32, u64)>,
}

impl<'a> WorldItem<'a> {
    #[must_use]
    pub fn new(id: CharacterId, input: FrameInput<'a>, output: &'a mut [Transform]) -> Self {
        Self {
            id,
            input,
            output,
            world: None,
            importance: 0.0,
            result: Ok(UpdateInfo::default()),
            planned: None,
        }
    }

    /// The level [`World::plan`] chose for this item (`None` before a plan,
    /// or when the item failed planning).
    #[must_use]
    pub fn level(&self, world: &World) -> Option<Level> {
        let (slot, stamp) = self.planned?;
        let cell = world.slots.get(slot as usize)?.cell.as_ref()?;
        // SAFETY: `&World` excludes every update, so nothing writes the slot.
        let state = unsafe { &*cell.get() };
        (stamp == world.stamp).then(|| Level::from_index(state.level))
    }
}

/// What a slot keeps besides its character.
pub(crate) struct SlotState {
    character: Character,
    /// Level of the last planned update.
    level: u8,
    /// Level before that (what the update moves from): the level of the
    /// last update that ran.
    previous: u8,
    /// The level of the last update that ran. A plan moves from it, so an
    /// item planned and then refused (its input) or never run leaves the
    /// slot's levels as they were.
    ran_level: u8,
    /// The plan that last listed this slot and the entry it listed it at
    /// (`u32::MAX`: listed twice, not planned).
    planned_by: Option<(u64, u32)>,
    /// The plan whose update last ran this slot.
    ran: u64,
    /// Planned joint-substeps at `Full`, `Half`, `Quarter` over the next
    /// four updates of this dt (four times the planned cost per update).
    cost: [u64; 3],
    /// A level the budget does not move ([`World::pin_level`]).
    pinned: Option<u8>,
    /// One rotation per chain particle: while the character is held, the
    /// held chain joints' local rotations; while a level change blends,
    /// its offset per chain joint (a held character never blends).
    keep: Vec<[f32; 4]>,
    /// No update has shown anything yet.
    shown_unset: bool,
    /// The updates left of a level change's blend.
    blend_left: u8,
    /// What a level change that runs the previous level takes of the
    /// world's [`Arena`]: snapshot bytes, chain rotations.
    need: [usize; 2],
    /// Where this update's level change has its room in the arena, if the
    /// last plan gave it one (offsets, in the arena's two units).
    lease: Option<[usize; 2]>,
}

/// How many characters' level-change room a world keeps: an
/// [`ARENA_SHARE`]th of what its characters would need together, and at
/// least what its largest one needs. The plan admits, most important
/// first, the level changes that fit; the others wait for a later update.
pub const ARENA_SHARE: usize = 16;

/// Room for the level changes of one update that run the previous level
/// (the module documentation): a snapshot of the character and what the
/// previous level showed (its chain joints' rotations).
/// Shared by the world's characters; the plan hands out disjoint parts.
struct Arena {
    bytes: Vec<u8>,
    rotations: Vec<[f32; 4]>,
    /// The sum of the live characters' needs, and the largest need seen.
    needed: [usize; 2],
    largest: [usize; 2],
    /// The two buffers' addresses, taken whenever they grow (only
    /// [`World::add`], under `&mut World`); ranges write their leased parts
    /// through them.
    base: (*mut u8, *mut [f32; 4]),
}

impl Arena {
    fn new() -> Self {
        let mut a = Arena {
            bytes: Vec::new(),
            rotations: Vec::new(),
            needed: [0; 2],
            largest: [0; 2],
            base: (std::ptr::null_mut(), std::ptr::null_mut()),
        };
        a.rebase();
        a
    }

    fn rebase(&mut self) {
        self.base = (self.bytes.as_mut_ptr(), self.rotations.as_mut_ptr());
    }

    /// A character that needs `need` joins: the room grows to an
    /// [`ARENA_SHARE`]th of all needs, at least the largest.
    fn join(&mut self, need: [usize; 2]) {
        for ((sum, largest), n) in self.needed.iter_mut().zip(&mut self.largest).zip(need) {
            *sum += n;
            *largest = (*largest).max(n);
        }
        let room = |k: usize| self.largest[k].max(self.needed[k].div_ceil(ARENA_SHARE));
        let (b, r) = (room(0), room(1));
        // Exactly the room (no doubling: it is held for the world's life).
        if b > self.bytes.len() {
            self.bytes.reserve_exact(b - self.bytes.len());
            self.bytes.resize(b, 0);
        }
        if r > self.rotations.len() {
            self.rotations.reserve_exact(r - self.rotations.len());
            self.rotations.resize(r, [0.0, 0.0, 0.0, 1.0]);
        }
        self.rebase();
    }

    /// A character leaves (the room does not shrink).
    fn leave(&mut self, need: [usize; 2]) {
        for (sum, n) in self.needed.iter_mut().zip(need) {
            *sum -= n;
        }
    }

    fn room(&self) -> [usize; 2] {
        [self.bytes.len(), self.rotations.len()]
    }
}

/// A slot's part of the [`Arena`] for one update.
#[derive(Clone, Copy)]
pub(crate) struct Lease {
    bytes: (*mut u8, usize),
    rotations: (*mut [f32; 4], usize),
}

impl Lease {
    /// # Safety
    /// The lease is this thread's alone (the plan gave it to one slot, run
    /// by one range) and the arena lives.
    unsafe fn parts<'s>(self) -> (&'s mut [u8], &'s mut [[f32; 4]]) {
        // SAFETY: the caller's; the parts are disjoint and in the arena.
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.bytes.0, self.bytes.1),
                std::slice::from_raw_parts_mut(self.rotations.0, self.rotations.1),
            )
        }
    }
}

struct Slot {
    generation: u32,
    /// Boxed: the character's address is stable for the C ABI's handle.
    cell: Option<Box<UnsafeCell<SlotState>>>,
}

/// Characters created, owned and updated together; see the module
/// documentation for the budget. All memory a frame needs is allocated by
/// [`World::add`]; [`World::plan`], [`Plan::update_range`] and
/// [`World::update`] allocate nothing.
pub struct World {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
    budget: Option<u64>,
    /// Plans made so far (each item remembers the one it was planned in).
    stamp: u64,
    /// Planning scratch: (importance, slot, item index), capacity = live.
    order: Vec<(f32, u32, u32)>,
    arena: Arena,
    /// The live characters' addresses (the C ABI's handles) and slots,
    /// sorted by address: a handle is found without reading through it,
    /// so a removed character's handle is refused, not read.
    addresses: Vec<(usize, u32)>,
}

// SAFETY: a character is reached through its slot's UnsafeCell only by
// `&mut World` methods or by a `Plan`, which holds `&mut World` and hands
// each range the slots of its own items (unique within a plan, checked by
// `World::plan`). Characters are Send (they hold Arc<Rig> and Vecs).
unsafe impl Sync for World {}
// SAFETY: as above; nothing in a slot is tied to a thread.
unsafe impl Send for World {}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

/// Error text for an id that names no live character of this world.
const STALE: &str = "character id is stale (removed) or from another world";

/// Error text for a character pointer (the C ABI's handle) that names no
/// live character of this world ([`World::find`]).
pub(crate) const NOT_LIVE: &str =
    "character is not a live character of this world (removed, or of another world)";

impl World {
    #[must_use]
    pub fn new() -> World {
        World {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            addresses: Vec::new(),
            budget: None,
            stamp: 0,
            order: Vec::new(),
            arena: Arena::new(),
        }
    }

    /// Creates a character of `rig` in the world (a removed character's slot
    /// is reused, with a new generation). Allocates; do it between updates.
    pub fn add(&mut self, rig: Arc<Rig>, options: CharacterOptions) -> CharacterId {
        let particles: usize = rig.chains.iter().map(|c| c.joints.len()).sum();
        let mut character = Character::new(rig, options);
        let need = [character.snapshot_size(), particles];
        self.arena.join(need);
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    cell: None,
                });
                (self.slots.len() - 1) as u32
            }
        };
        character.world_slot = index;
        let slot = &mut self.slots[index as usize];
        slot.cell = Some(Box::new(UnsafeCell::new(SlotState {
            character,
            level: 0,
            previous: 0,
            ran_level: 0,
            planned_by: None,
            ran: 0,
            cost: [0; 3],
            pinned: None,
            keep: vec![[0.0, 0.0, 0.0, 1.0]; particles],
            shown_unset: true,
            blend_left: 0,
            need,
            lease: None,
        })));
        let generation = slot.generation;
        let address = Self::address_of(slot);
        let at = self.addresses.partition_point(|&(a, _)| a < address);
        self.addresses.insert(at, (address, index));
        self.live += 1;
        self.order
            .reserve(self.live.saturating_sub(self.order.len()));
        let slots = self.slots.len();
        self.free.reserve(slots.saturating_sub(self.free.len()));
        CharacterId { index, generation }
    }

    /// Destroys a character. A stale id is refused and changes nothing.
    pub fn remove(&mut self, id: CharacterId) -> Result<(), Error> {
        let need = self.state_mut(id)?.need;
        self.arena.leave(need);
        let slot = &mut self.slots[id.index as usize];
        let address = Self::address_of(slot);
        if let Ok(at) = self.addresses.binary_search(&(address, id.index)) {
            self.addresses.remove(at);
        }
        slot.cell = None;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        self.live -= 1;
        Ok(())
    }

    /// Characters in the world.
    #[must_use]
    pub fn len(&self) -> usize {
        self.live
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Whether `id` names a live character of this world.
    #[must_use]
    pub fn contains(&self, id: CharacterId) -> bool {
        self.get(id).is_ok()
    }

    /// The ids of the live characters, in slot order.
    pub fn ids(&self) -> impl Iterator<Item = CharacterId> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.cell.as_ref().map(|_| CharacterId {
                index: i as u32,
                generation: s.generation,
            })
        })
    }

    fn state_mut(&mut self, id: CharacterId) -> Result<&mut SlotState, Error> {
        match self.slots.get_mut(id.index as usize) {
            Some(Slot {
                generation,
                cell: Some(cell),
                ..
            }) if *generation == id.generation => Ok(cell.get_mut()),
            _ => Err(Error::InvalidParameter(STALE)),
        }
    }

    /// A character of the world.
    pub fn get(&self, id: CharacterId) -> Result<&Character, Error> {
        match self.slots.get(id.index as usize) {
            Some(Slot {
                generation,
                cell: Some(cell),
                ..
            }) if *generation == id.generation => {
                // SAFETY: `&self` excludes every `&mut` path (updates hold
                // `&mut World` through their `Plan`).
                Ok(unsafe { &(*cell.get()).character })
            }
            _ => Err(Error::InvalidParameter(STALE)),
        }
    }

    /// A character of the world, for every per-character operation
    /// (teleport, reset, chain parameters, snapshot and restore, LOD
    /// importance, wind, stage switches, `shift_world`, even a
    /// per-character update).
    pub fn get_mut(&mut self, id: CharacterId) -> Result<&mut Character, Error> {
        self.state_mut(id).map(|s| &mut s.character)
    }

    /// The address of a live slot's character (0 for an empty slot).
    fn address_of(slot: &Slot) -> usize {
        slot.cell.as_ref().map_or(0, |c| {
            // SAFETY: only the field's address is taken; nothing is read.
            unsafe { std::ptr::addr_of!((*c.get()).character) as usize }
        })
    }

    /// The id of the live character at `character` (the C ABI's handle),
    /// found by its address alone: the pointer is never read, so a removed
    /// character's handle is refused without touching freed memory. (An
    /// address a later [`World::add`] reuses names the new character, as
    /// any reused pointer does.)
    pub(crate) fn find(&self, character: *const Character) -> Option<CharacterId> {
        let address = character as usize;
        let at = self.addresses.partition_point(|&(a, _)| a < address);
        let &(a, index) = self.addresses.get(at)?;
        (a == address).then(|| CharacterId {
            index,
            generation: self.slots[index as usize].generation,
        })
    }

    /// The budget in joint-substeps per update (`None`: no budget, every
    /// character at `Full`). A budget of 0 holds every character.
    pub fn set_budget(&mut self, budget: Option<u64>) {
        self.budget = budget;
    }

    #[must_use]
    pub fn budget(&self) -> Option<u64> {
        self.budget
    }

    /// Pins a character at `level` (`None`: the budget moves it again):
    /// every plan gives it that level, and its cost still counts against
    /// the budget. A hero character that must never degrade is pinned at
    /// `Full`; tools compare a character at two levels this way.
    pub fn pin_level(&mut self, id: CharacterId, level: Option<Level>) -> Result<(), Error> {
        self.state_mut(id)?.pinned = level.map(|l| l as u8);
        Ok(())
    }

    /// The level a character was planned at last (`Full` before any plan).
    pub fn level(&self, id: CharacterId) -> Result<Level, Error> {
        self.get(id)?;
        let cell = self.slots[id.index as usize].cell.as_ref().expect("live");
        // SAFETY: as in `get`.
        Ok(Level::from_index(unsafe { (*cell.get()).level }))
    }

    /// Plans this update of `items` (once per frame, before their ranges
    /// run): checks each item's id (a stale or repeated one fails that
    /// item, in its `result`), importance and dt (a refused item costs
    /// nothing against the budget), then chooses every character's level by the
    /// budget rule of the module documentation. Does not allocate. Returns
    /// the [`Plan`] whose [`Plan::update_range`] runs the items.
    pub fn plan<'w>(&'w mut self, items: &mut [WorldItem<'_>]) -> Plan<'w> {
        for item in items.iter_mut() {
            item.planned = None;
            item.result = Ok(UpdateInfo::default());
        }
        let stamp = self.plan_entries(
            items.len(),
            |i| {
                let item = &items[i];
                Some((
                    Some(item.id),
                    item.importance,
                    item.input.dt,
                    std::ptr::null(),
                ))
            },
            |_, _| {},
        );
        // The second pass writes what the first found (the closures above
        // may not both borrow `items`).
        for item in items.iter_mut() {
            if !item.importance.is_finite() {
                item.result = Err(Error::InvalidParameter("item importance is not finite"));
                continue;
            }
            let dt = item.input.dt;
            if !crate::clock::dt_accepted(dt) {
                item.result = Err(Error::InvalidDt(dt));
                continue;
            }
            match self.planned_slot(item.id, stamp) {
                Ok(slot) => item.planned = Some((slot, stamp)),
                Err(e) => item.result = Err(e),
            }
        }
        Plan { world: self }
    }

    /// Whether `id` was planned in plan `stamp` (its slot), or why not.
    fn planned_slot(&mut self, id: CharacterId, stamp: u64) -> Result<u32, Error> {
        let state = self.state_mut(id)?;
        match state.planned_by {
            Some((s, i)) if s == stamp => {
                if i == u32::MAX {
                    Err(Error::InvalidParameter(
                        "a character is listed twice in one world update",
                    ))
                } else {
                    Ok(id.index)
                }
            }
            _ => Err(Error::InvalidParameter("the item was not planned")),
        }
    }

    /// [`World::plan`] over `count` entries, each `(id, importance, dt,
    /// character)` or an error (the id `None`: the character's address
    /// names it, [`World::find`]); `refuse(i, error)` is told of every
    /// entry not planned. Returns the plan's number.
    #[allow(clippy::type_complexity)]
    pub(crate) fn plan_entries(
        &mut self,
        count: usize,
        mut entry: impl FnMut(usize) -> Option<(Option<CharacterId>, f32, f32, *const Character)>,
        mut refuse: impl FnMut(usize, Error),
    ) -> u64 {
        self.stamp = self.stamp.wrapping_add(1);
        let stamp = self.stamp;
        let budgeted = self.budget.is_some();
        self.order.clear();
        for i in 0..count {
            let Some((id, importance, dt, expected)) = entry(i) else {
                continue;
            };
            let Some(id) = id.or_else(|| self.find(expected)) else {
                refuse(i, Error::InvalidParameter(NOT_LIVE));
                continue;
            };
            let state = match self.state_mut(id) {
                Ok(s) => s,
                Err(e) => {
                    refuse(i, e);
                    continue;
                }
            };
            if !expected.is_null() && !std::ptr::eq(&state.character, expected) {
                refuse(
                    i,
                    Error::InvalidParameter("character is not a character of this world"),
                );
                continue;
            }
            if !importance.is_finite() {
                refuse(i, Error::InvalidParameter("item importance is not finite"));
                continue;
            }
            if let Some((s, first)) = state.planned_by {
                if s == stamp {
                    // Listed twice: neither entry runs.
                    if first != u32::MAX {
                        refuse(
                            first as usize,
                            Error::InvalidParameter(
                                "a character is listed twice in one world update",
                            ),
                        );
                        state.planned_by = Some((stamp, u32::MAX));
                    }
                    refuse(
                        i,
                        Error::InvalidParameter("a character is listed twice in one world update"),
                    );
                    continue;
                }
            }
            // A dt the update refuses is refused here, before it counts
            // against the budget or moves the level.
            if !crate::clock::dt_accepted(dt) {
                refuse(i, Error::InvalidDt(dt));
                continue;
            }
            state.planned_by = Some((stamp, i as u32));
            // The cost of a level: its joint-substeps over the next four
            // updates of this dt, by the character's chain clocks (a
            // quarter-rate chain steps every other update at 60 Hz; the
            // average keeps the plan from flickering with that phase).
            // Only a budget reads it.
            if budgeted {
                for shift in 0..3 {
                    state.cost[shift] = state
                        .character
                        .planned_joint_substeps(4.0 * dt, shift as u32);
                }
            }
            state.previous = state.ran_level;
            state.lease = None;
            // `order` has capacity for every live character, each listed
            // once: no allocation.
            self.order.push((importance, id.index, i as u32));
        }
        // A character listed twice is not planned at all.
        self.order.retain(|&(_, slot, _)| {
            let state = self.slots[slot as usize].cell.as_ref().expect("live");
            // SAFETY: `&mut self`; no other reference to the slot exists.
            unsafe { (*state.get()).planned_by != Some((stamp, u32::MAX)) }
        });
        let budget = self.budget;
        // Start: one level better than the last (or Full).
        let mut total = 0u64;
        for &(_, slot, _) in &self.order {
            let state = self.slots[slot as usize]
                .cell
                .as_mut()
                .expect("live")
                .get_mut();
            state.level = match (state.pinned, budget) {
                (Some(level), _) => level,
                (None, _) => state.previous.saturating_sub(1),
            };
            total += cost_at(state, state.level);
        }
        // Least important first; equal importance: the higher slot first.
        self.order.sort_unstable_by(|a, b| {
            a.0.partial_cmp(&b.0)
                .expect("finite importances")
                .then(b.1.cmp(&a.1))
        });
        if let Some(budget) = budget {
            // In the units of `cost`: four updates.
            let budget = budget.saturating_mul(4);
            'passes: for target in 1..=Level::Held as u8 {
                for &(_, slot, _) in &self.order {
                    if total <= budget {
                        break 'passes;
                    }
                    let state = self.slots[slot as usize]
                        .cell
                        .as_mut()
                        .expect("live")
                        .get_mut();
                    // A character whose chains cost nothing this update (none,
                    // switched off, asleep, or not started) is left alone.
                    if state.pinned.is_none()
                        && state.cost[0] > 0
                        && state.level < target
                        && target <= state.previous.saturating_add(1)
                    {
                        total = total - cost_at(state, state.level) + cost_at(state, target);
                        state.level = target;
                    }
                }
            }
        }
        // The level changes that run the previous level get their room in
        // the arena: degradations first, least important first, then
        // restorations, most important first (so that a more important
        // character is never left at a worse level for want of room); one
        // that does not fit keeps its level this update.
        let held = Level::Held as u8;
        let room = self.arena.room();
        let mut used = [0usize; 2];
        let n = self.order.len();
        for pass in 0..2 * n {
            let (_, slot, _) = self.order[if pass < n { pass } else { 2 * n - 1 - pass }];
            let state = self.slots[slot as usize]
                .cell
                .as_mut()
                .expect("live")
                .get_mut();
            let degrades = state.level > state.previous;
            if state.level == state.previous
                || state.shown_unset
                || state.previous == held
                || degrades != (pass < n)
            {
                continue;
            }
            let need = state.need;
            if (0..2).all(|k| used[k] + need[k] <= room[k]) {
                state.lease = Some(used);
                for k in 0..2 {
                    used[k] += need[k];
                }
            } else {
                state.level = state.previous;
            }
        }
        stamp
    }

    /// Plans and runs `items` (one [`World::plan`], then
    /// [`Plan::update_range`] over all of them); returns how many failed.
    pub fn update(&mut self, items: &mut [WorldItem<'_>]) -> usize {
        let plan = self.plan(items);
        plan.update_range(items)
    }
}

/// Planned joint-substeps of a slot at `level`.
fn cost_at(state: &SlotState, level: u8) -> u64 {
    state.cost.get(level as usize).copied().unwrap_or(0)
}

/// One planned update of a [`World`] (from [`World::plan`]). Its
/// [`Plan::update_range`] may run on several threads at once, each on its
/// own range of the planned items (`chunks_mut`): the ranges touch only
/// their own characters, with no locks and no allocation.
pub struct Plan<'w> {
    world: &'w World,
}

// SAFETY: see `World`'s Sync; update_range touches only its items' slots.
unsafe impl Sync for Plan<'_> {}

/// One character's update in a window of [`run_window`]: its slot (of a
/// plan, run at most once), input, output and world transform.
pub(crate) struct Entry<'a> {
    state: *mut SlotState,
    /// The input; its pose is `output` itself (read before the output is
    /// written) when `in_place`.
    pub(crate) input: FrameInput<'a>,
    pub(crate) output: &'a mut [Transform],
    pub(crate) in_place: bool,
    pub(crate) world: Option<Transform>,
    /// The slot's part of the arena for a level change this update.
    lease: Option<Lease>,
}

impl Plan<'_> {
    /// A plan over `world` made by [`World::plan_entries`] (the C ABI:
    /// the caller promises that nothing else uses the world meanwhile).
    pub(crate) fn of(world: &World) -> Plan<'_> {
        Plan { world }
    }

    /// The slot of `character` if the current plan listed it and no range
    /// has run it yet; marks it run.
    ///
    /// # Safety
    /// No other thread runs the same slot (the plan lists each character
    /// once, and ranges do not overlap).
    pub(crate) unsafe fn take_slot(
        &self,
        id: CharacterId,
        expected: *const Character,
    ) -> Result<*mut SlotState, Error> {
        let stamp = self.world.stamp;
        let cell = match self.world.slots.get(id.index as usize) {
            Some(Slot {
                generation,
                cell: Some(cell),
                ..
            }) if *generation == id.generation => cell,
            _ => return Err(Error::InvalidParameter(STALE)),
        };
        let ptr = cell.get();
        // SAFETY: the caller's promise: this thread alone reaches the slot.
        let state = unsafe { &mut *ptr };
        if !expected.is_null() && !std::ptr::eq(&state.character, expected) {
            return Err(Error::InvalidParameter(
                "character is not a character of this world",
            ));
        }
        match state.planned_by {
            Some((s, i)) if s == stamp && i != u32::MAX => {}
            _ => {
                return Err(Error::InvalidParameter(
                    "the character was not planned by the last plan (World::plan)",
                ))
            }
        }
        if state.ran == stamp {
            return Err(Error::InvalidParameter(
                "the character has already been updated in this plan",
            ));
        }
        state.ran = stamp;
        Ok(ptr)
    }

    /// The id of the live character at `character` ([`World::find`]).
    pub(crate) fn find(&self, character: *const Character) -> Option<CharacterId> {
        self.world.find(character)
    }

    /// The arena part the plan leased to `state` for this update.
    fn lease(&self, state: *mut SlotState) -> Option<Lease> {
        // SAFETY: only the lease (written by the plan) is read.
        let (offsets, need) = unsafe { ((*state).lease?, (*state).need) };
        let base = self.world.arena.base;
        // SAFETY: the plan kept every lease inside the arena, which does
        // not shrink.
        unsafe {
            Some(Lease {
                bytes: (base.0.add(offsets[0]), need[0]),
                rotations: (base.1.add(offsets[1]), need[1]),
            })
        }
    }

    /// The slot's character (for the C ABI's checks before an entry runs).
    ///
    /// # Safety
    /// As [`Plan::take_slot`]'s pointer.
    pub(crate) unsafe fn character<'s>(state: *mut SlotState) -> &'s mut Character {
        // SAFETY: the caller's.
        unsafe { &mut (*state).character }
    }

    /// A window entry (`in_place`: the input pose is `output`; `input`'s
    /// pose is not read).
    pub(crate) fn entry<'a>(
        &self,
        state: *mut SlotState,
        input: FrameInput<'a>,
        (output, in_place): (&'a mut [Transform], bool),
        world: Option<Transform>,
    ) -> Entry<'a> {
        Entry {
            state,
            input,
            output,
            in_place,
            world,
            lease: self.lease(state),
        }
    }

    /// Runs the update of `items`, a range of the items this plan was made
    /// for (an item of another plan fails with an error), each as
    /// [`Character::update`] would at its planned level; returns how many
    /// failed. Up to [`crate::BATCH_CHAINS_TOGETHER`] consecutive items
    /// share the chain kernel's lanes; a character's output bits do not
    /// depend on its neighbours.
    pub fn update_range(&self, items: &mut [WorldItem<'_>]) -> usize {
        const JOBS: usize = chain_stage::JOBS;
        let mut failed = 0;
        for window in items.chunks_mut(JOBS) {
            let count = window.len();
            let mut entries: [Option<Entry<'_>>; JOBS] = [const { None }; JOBS];
            let mut results: [Option<Result<UpdateInfo, Error>>; JOBS] = [const { None }; JOBS];
            for ((item, entry), result) in window.iter_mut().zip(&mut entries).zip(&mut results) {
                if item.result.is_err() {
                    continue;
                }
                let slot = match item.planned {
                    Some((_, stamp)) if stamp == self.world.stamp => {
                        // SAFETY: World::plan listed this item's character
                        // once, and the Plan excludes every other use of
                        // the world; ranges do not overlap.
                        unsafe { self.take_slot(item.id, std::ptr::null()) }
                    }
                    _ => Err(Error::InvalidParameter(
                        "item was not planned by this plan (World::plan)",
                    )),
                };
                match slot {
                    Ok(state) => {
                        *entry = Some(self.entry(
                            state,
                            item.input,
                            (&mut *item.output, false),
                            item.world,
                        ));
                    }
                    Err(e) => *result = Some(Err(e)),
                }
            }
            // SAFETY: every entry's slot was taken above.
            unsafe { run_window(&mut entries[..count], &mut results[..count]) };
            for (item, result) in window.iter_mut().zip(results) {
                if let Some(r) = result {
                    item.result = r;
                }
                if item.result.is_err() {
                    failed += 1;
                }
            }
        }
        failed
    }
}

/// Runs a window of up to [`chain_stage::JOBS`] entries (`None`: none
/// there), writing each entry's outcome into `results`: each update up to
/// its chain stage, the chain stages together (sharing the lanes), each
/// update's end.
///
/// # Safety
/// Every entry's slot comes from [`Plan::take_slot`] on this thread.
pub(crate) unsafe fn run_window(
    entries: &mut [Option<Entry<'_>>],
    results: &mut [Option<Result<UpdateInfo, Error>>],
) {
    const JOBS: usize = chain_stage::JOBS;
    debug_assert!(entries.len() <= JOBS);
    let count = entries.len();
    let mut states: [Option<&mut SlotState>; JOBS] = [const { None }; JOBS];
    let mut runs = [Run::default(); JOBS];
    for (((entry, slot), run), result) in entries
        .iter_mut()
        .zip(&mut states)
        .zip(&mut runs)
        .zip(results.iter_mut())
    {
        let Some(entry) = entry else { continue };
        // SAFETY: the caller's promise.
        let state = unsafe { &mut *entry.state };
        match begin_item(state, entry) {
            Ok(r) => {
                *run = r;
                *slot = Some(state);
            }
            Err(e) => *result = Some(Err(e)),
        }
    }
    {
        let mut jobs: [Option<chain_stage::Job<'_>>; JOBS] = [const { None }; JOBS];
        for ((state, job), run) in states.iter_mut().zip(&mut jobs).zip(&runs) {
            if let (Some(state), true) = (state.as_deref_mut(), run.chains) {
                let shift = u32::from(state.level.min(2));
                *job = Some(state.character.chain_job_at(run.dt, run.teleport, shift));
            }
        }
        chain_stage::step_jobs(&mut jobs[..count]);
    }
    for (((entry, state), run), result) in entries
        .iter_mut()
        .zip(&mut states)
        .zip(&runs)
        .zip(results.iter_mut())
    {
        let (Some(entry), Some(state)) = (entry, state.as_deref_mut()) else {
            continue;
        };
        let mut info = run.info;
        if run.chains {
            info.warnings |= state.character.chain_warnings();
            info.joint_substeps = info
                .joint_substeps
                .saturating_add(state.character.joint_substeps());
        }
        finish_item(state, entry.output, run);
        *result = Some(Ok(info));
    }
}

/// How many updates a level change blends over (the budget, in the module
/// documentation).
pub const BLEND_UPDATES: u8 = 8;

/// What an item's update does after its chain stage.
#[derive(Clone, Copy, Default)]
struct Run {
    info: UpdateInfo,
    /// The chain stage runs in the shared step.
    chains: bool,
    dt: f32,
    teleport: bool,
    /// The chain joints are held (written after the update).
    hold: bool,
    /// On a level change: what the previous level shows.
    from: Shown,
}

/// What the previous level shows on a level change.
#[derive(Clone, Copy, Default)]
enum Shown {
    /// No level change (or the first update: nothing shown yet).
    #[default]
    None,
    /// The held pose in `keep`: the previous level is `Held`.
    Keep,
    /// Its run's chain rotations, in the slot's arena lease.
    Run(*const [f32; 4], usize),
}

/// An item's update up to its chain stage. On a level change from a
/// running level the previous level runs first, alone, from a snapshot of
/// the character that is then restored (both in the slot's arena lease),
/// so that the output starts from what the previous level shows
/// ([`BLEND_UPDATES`]); from `Held` that is the held pose. On error
/// nothing of the character has changed.
fn begin_item(state: &mut SlotState, item: &mut Entry<'_>) -> Result<Run, Error> {
    let held = Level::Held as u8;
    let change = state.level != state.previous && !state.shown_unset;
    let mut extra = 0;
    let mut from = Shown::None;
    if change && state.previous == held {
        from = Shown::Keep;
    } else if let (true, Some(lease)) = (change, item.lease) {
        // SAFETY: the plan leased this part to this slot alone, which this
        // thread runs.
        let (bytes, rotations) = unsafe { lease.parts() };
        // The previous level's run writes no output (an in-place input
        // stays for the second run): its chain joints' rotations go to
        // `rotations`.
        // The previous level, alone, from a snapshot.
        state.character.snapshot(bytes)?;
        let previous = state.previous;
        let run = begin(
            &mut state.character,
            &state.keep,
            item,
            (previous, previous),
        )?;
        if run.chains {
            let c = &mut state.character;
            chain_stage::step_jobs(&mut [Some(c.chain_job_at(
                run.dt,
                run.teleport,
                u32::from(previous.min(2)),
            ))]);
            extra = c.joint_substeps();
        }
        // Committed without an output: the result stays in its pose.
        state.character.commit();
        // What the previous level shows (its blend, if one is under way).
        let rig = Arc::clone(state.character.rig());
        let pose = state.character.pose();
        let w = blend_weight(state);
        for ((r, j), offset) in rotations
            .iter_mut()
            .zip(chain_joints(&rig))
            .zip(&state.keep)
        {
            *r = match w {
                Some(w) => blended(*offset, w, pose[j].rotation),
                None => pose[j].rotation,
            };
        }
        state
            .character
            .restore(bytes)
            .expect("a snapshot of this character restores");
        from = Shown::Run(rotations.as_ptr(), rotations.len());
    }
    let levels = (state.level, state.previous);
    let mut run = begin(&mut state.character, &state.keep, item, levels)?;
    run.from = from;
    run.info.joint_substeps = run.info.joint_substeps.saturating_add(extra);
    Ok(run)
}

/// An item's update at `(level, previous)` up to its chain stage.
fn begin(
    c: &mut Character,
    keep: &[[f32; 4]],
    item: &Entry<'_>,
    (level, previous): (u8, u8),
) -> Result<Run, Error> {
    let hold_level = Level::Held as u8;
    let saved = c.chain_inputs();
    if let Some(world) = item.world {
        c.set_world_transform(world)?;
    }
    let input = if item.in_place {
        FrameInput {
            pose: &*item.output,
            ..item.input
        }
    } else {
        item.input
    };
    let (info, run) = match c.begin_update(&input, item.output.len()) {
        Ok(r) => r,
        Err(e) => {
            c.restore_chain_inputs(saved);
            return Err(e);
        }
    };
    let r = Run {
        info,
        chains: run && level != hold_level,
        dt: item.input.dt,
        teleport: item.input.teleport,
        hold: run && level == hold_level,
        from: Shown::None,
    };
    if r.chains && previous == hold_level {
        // Released: the particles start on the held pose, at rest (on
        // the input's pose where they rest on it).
        c.reseed_chains(keep);
    }
    Ok(r)
}

/// An item's update after its chain stage: committed; entering the hold,
/// the held pose taken (what the previous level shows: no blend); held,
/// the held joints written; on a level change to a running level the
/// offset from what the previous level shows taken, and the blend applied.
fn finish_item(state: &mut SlotState, output: &mut [Transform], run: &Run) {
    state.character.finish_update(output);
    let held = Level::Held as u8;
    if state.level == held {
        if state.previous != held {
            match run.from {
                // SAFETY: the lease's rotations, written by begin_item.
                Shown::Run(p, n) => state
                    .keep
                    .copy_from_slice(unsafe { std::slice::from_raw_parts(p, n) }),
                _ => {
                    // Nothing shown before (or no room for the previous
                    // level's run): hold what this update shows.
                    blend(state, output);
                    let SlotState {
                        character, keep, ..
                    } = &mut *state;
                    for (k, j) in keep.iter_mut().zip(chain_joints(character.rig())) {
                        *k = output[j].rotation;
                    }
                }
            }
            state.blend_left = 0;
        }
        if run.hold {
            write_held(state.character.rig(), &state.keep, output);
        }
    } else {
        let offset =
            |from: [f32; 4], now: [f32; 4]| (unit(from) * unit(now).conjugate()).to_array();
        // The rig borrowed beside the held rotations, not cloned: an
        // `Arc` clone per update is two atomic operations on a count that
        // every character of the rig shares, across the threads of a
        // world's ranges.
        let SlotState {
            character,
            keep,
            blend_left,
            ..
        } = &mut *state;
        match run.from {
            Shown::None => {}
            Shown::Keep => {
                for (k, j) in keep.iter_mut().zip(chain_joints(character.rig())) {
                    *k = offset(*k, output[j].rotation);
                }
                *blend_left = BLEND_UPDATES;
            }
            Shown::Run(p, n) => {
                // SAFETY: the lease's rotations, written by begin_item.
                let from = unsafe { std::slice::from_raw_parts(p, n) };
                for ((k, f), j) in keep.iter_mut().zip(from).zip(chain_joints(character.rig())) {
                    *k = offset(*f, output[j].rotation);
                }
                *blend_left = BLEND_UPDATES;
            }
        }
        blend(state, output);
        state.blend_left = state.blend_left.saturating_sub(1);
    }
    state.shown_unset = false;
    state.ran_level = state.level;
}

/// Turns the chain joints of `output` by the level change's offset, in
/// the share still left of it (all of it on the update of the change,
/// nothing after [`BLEND_UPDATES`] updates).
fn blend(state: &SlotState, output: &mut [Transform]) {
    let Some(w) = blend_weight(state) else {
        return;
    };
    for (offset, j) in state.keep.iter().zip(chain_joints(state.character.rig())) {
        output[j].rotation = blended(*offset, w, output[j].rotation);
    }
}

/// The share of the blend's offsets still applied, while one is under way.
fn blend_weight(state: &SlotState) -> Option<f32> {
    (state.blend_left > 0).then(|| f32::from(state.blend_left) / f32::from(BLEND_UPDATES))
}

/// A chain joint's `rotation` turned by the share `w` of its blend `offset`.
fn blended(offset: [f32; 4], w: f32, rotation: [f32; 4]) -> [f32; 4] {
    let turn = Quat::IDENTITY.slerp(Quat::from_array(offset), w);
    (turn * unit(rotation)).normalize().to_array()
}

/// A chain joint's output rotation as a unit quaternion: a joint the chain
/// passes through keeps the input's, of any length the input check
/// accepts (`math::usable_rotation`: squared length up to `f32::MAX`, so
/// normalizing it cannot overflow, where a product with it could).
fn unit(q: [f32; 4]) -> Quat {
    Quat::from_array(q).normalize()
}

/// The chain joints of `rig`, in chain order (one per chain particle).
fn chain_joints(rig: &Rig) -> impl Iterator<Item = usize> + '_ {
    rig.chains
        .iter()
        .flat_map(|c| c.joints.iter().map(|&j| j as usize))
}

/// The held chain joints' rotations into `output`.
fn write_held(rig: &Rig, held: &[[f32; 4]], output: &mut [Transform]) {
    for (h, j) in held.iter().zip(chain_joints(rig)) {
        output[j].rotation = *h;
    }
}
