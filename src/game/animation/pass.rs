//! The animation pass of a frame over every model instance: advance, pose, drive the bone
//! objects, and report completions and events in instance order; on the calling thread, or on
//! the pool's threads too when that is faster (`base::parallel`).
use super::state::{AnimState, EventHit, IkTarget, Listener, PoseBuffers};
use crate::anim::Playback;
use crate::base::hash::Hash;
use crate::base::prefetch::Streaming;
use crate::game::World;
use crate::game::model_world::{ModelInstance, ModelWorld};
use crate::scene::{BoneStream, Scene};
use glam::Vec3;

/// What the animation pass reports for the frame.
pub struct Finished {
    pub model: u32,
    pub layer: u8,
    pub animation: Hash,
    pub playback: Playback,
    pub listener: Listener,
}

/// An event for the frame's report.
pub struct EventReport {
    pub model: u32,
    pub hit: EventHit,
}

/// Below this many animated instances the pose pass stays on the calling thread: handing work
/// to the pool costs a few microseconds, about one instance's pose.
const PARALLEL_MIN_INSTANCES: usize = 32;
/// Instances per task of the pool: about four tasks per thread, within these bounds. Each task
/// is taken under a lock whose cache line moves between cores, and the pass prefetches only
/// within a task: crowd_fox_1000 on two cores took 0.45 ms a frame in tasks of 8 instances and
/// 0.40 in tasks of 32 to 128 (crowd_fox_100 the same either way).
const PARALLEL_CHUNKS: std::ops::RangeInclusive<usize> = 8..=32;

/// Asks for what the pass reads next while instance `i` is posed: the record two instances
/// ahead, and the buffers of the next one (read from the record asked for a step earlier).
#[inline(always)]
fn prefetch_ahead(instances: &[ModelInstance], i: usize) {
    if let Some(ahead) = instances.get(i + 2) {
        crate::base::prefetch::prefetch_value(ahead);
    }
    if let Some(next) = instances.get(i + 1)
        && let Some(a) = next.anim.as_ref()
    {
        a.prefetch();
        crate::base::prefetch::prefetch(&next.weights);
    }
}

/// The serial pass also asks for the scene entries the next instance's bone objects are driven
/// through: their one-byte `local` entries (the matrices are streamed, not read), a line or two
/// for a model's bones, which are made one after another: the first and the last bone's.
#[inline(always)]
fn prefetch_bones_ahead(instances: &[ModelInstance], stream: &BoneStream, i: usize) {
    if let Some(a) = instances.get(i + 1).and_then(|n| n.anim.as_ref()).filter(|a| a.any_bone_watched())
        && let (Some(first), Some(last)) = (a.bones().first(), a.bones().last())
    {
        stream.prefetch(first.1);
        stream.prefetch(last.1);
    }
}

/// What the animation pass reports for the frame: the ONCE animations that ended, and the
/// events crossed, in instance order.
pub type Report = (Vec<Finished>, Vec<EventReport>);

/// Whether the pass animates this instance.
fn live(inst: &ModelInstance) -> bool {
    inst.alive && inst.enabled && inst.anim.is_some()
}

/// Advances a live instance's layers (its report is kept for later); None for one the pass
/// leaves alone.
#[inline(always)]
fn advance<'a>(inst: &'a mut ModelInstance, dt: f32, scale: &[f32]) -> Option<(&'a mut AnimState, &'a mut Vec<f32>)> {
    if !live(inst) {
        return None;
    }
    let ModelInstance { anim, weights, slot, .. } = inst;
    let anim = anim.as_mut()?;
    anim.advance_into_own(crate::anim::tween::scaled_dt(scale, *slot, dt));
    Some((anim, weights))
}

/// Samples every playing model: pose, palettes, morph weights (then the script override) and
/// bone game objects. Returns the ONCE animations that ended this frame.
///
/// Instances are independent, so their advance and pose run on every core (rayon) and the
/// result is bit-identical to one thread: each instance's arithmetic is the same, and what they
/// report (completions, events) and write into the scene (bone objects) is gathered afterwards in
/// instance order. A frame where some IK chain has a target stays on one thread in the old
/// order, because a target may be another instance's bone, posed earlier in the same pass; so
/// does a pool of one thread (`RAYON_NUM_THREADS=1`), and so do frames where one thread is faster
/// (`base::parallel`: a pool left asleep through llvmpipe's long frames can be, unless [`ready`]
/// woke it as the frame began).
/// `w.proxies.time_scale` gives each model its world's time (collection proxies).
pub fn animate(w: &mut World, dt: f32) -> Report {
    let World { models, scene, proxies, .. } = w;
    let scale = &proxies.time_scale[..];
    // The last pass's count decides (a walk over every instance to count them cost a tenth of
    // crowd_fox_1000's pass); IK targets are known exactly, from the last change of one.
    let animated = models.animated;
    let ik = any_ik_target(models);
    let mut report = (Vec::new(), Vec::new());
    let parallel =
        !ik && animated >= PARALLEL_MIN_INSTANCES && models.bones_disjoint(scene) && models.pose_threads.parallel();
    let started = std::time::Instant::now();
    let (began, waking) = models.frame_began.take().unzip();
    models.pass_lead = began.map(|b| (started.duration_since(b), parallel));
    models.animated = if parallel {
        animate_parallel(models, scene, dt, scale, &mut report)
    } else {
        // Threads woken for this pass would wait in vain (and share the core it runs on).
        models.crew.dismiss();
        animate_serial(models, scene, dt, scale, &mut report)
    };
    if !ik && animated >= PARALLEL_MIN_INSTANCES {
        // Waking the threads is part of the parallel way's cost, wherever it was paid.
        let waking = if parallel { waking.unwrap_or_default() } else { std::time::Duration::ZERO };
        models.pose_threads.took(parallel, (started.elapsed() + waking).as_secs_f64());
    }
    models.apply_weight_overrides();
    report
}

/// The longest a frame's update may take before its animation pass for the pool's threads to
/// be woken at its start (they wait, spinning, for at most twice that).
const READY_LEAD_MAX: std::time::Duration = std::time::Duration::from_micros(500);

/// Called as a frame's update begins: when the last pass ran on the pool and began soon after
/// its frame's start, the pool's threads are woken now, so they are running when this frame's
/// pass starts instead of joining it late (`Crew::ready`). A frame whose scripts run longer
/// wakes them in the pass, as before, rather than keep a core spinning.
pub fn ready(models: &mut ModelWorld) {
    let now = std::time::Instant::now();
    if let Some((lead, true)) = models.pass_lead
        && lead <= READY_LEAD_MAX
    {
        let helpers = rayon::current_num_threads().saturating_sub(1).max(1);
        models.crew.ready(helpers, 2 * lead + std::time::Duration::from_micros(100));
    }
    models.frame_began = Some((now, now.elapsed()));
}

/// Whether some live instance has an IK target (then the pass keeps to one thread), walking the
/// instances only when one may have changed ([`ModelWorld::ik_target_known`]). It counts
/// targets on disabled and unanimated instances too, which can come back without an edit.
fn any_ik_target(models: &mut ModelWorld) -> bool {
    models.ik_target_known(|instances| {
        instances.iter().filter(|m| m.alive).any(|m| m.anim.as_ref().is_some_and(AnimState::has_ik_target))
    })
}

/// The pass on the calling thread, in instance order; returns how many instances it animated.
/// Bone objects are driven in runs of instances that need nothing else of the scene, through one
/// stream each (one fence per run); an instance that reads the scene (IK targets, which may be
/// bones posed earlier in this pass, or bones posed by scripts) is finished between runs, after
/// the fence.
fn animate_serial(models: &mut ModelWorld, scene: &mut Scene, dt: f32, scale: &[f32], report: &mut Report) -> usize {
    let ModelWorld { instances, pose_buffers, .. } = models;
    let mut animated = 0;
    let mut i = 0;
    while i < instances.len() {
        // The instance the run stopped at, advanced and reported, for the part that reads the
        // scene.
        let mut stopped = None;
        {
            let driver = scene.bone_driver();
            let stream = driver.stream();
            // The run's palettes, fenced once when it ends (nothing reads them before).
            let palettes = Streaming::new();
            while i < instances.len() {
                prefetch_ahead(instances, i);
                prefetch_bones_ahead(instances, &stream, i);
                let at = i;
                i += 1;
                let Some((anim, weights)) = instances.get_mut(at).and_then(|inst| advance(inst, dt, scale)) else {
                    continue;
                };
                animated += 1;
                anim.report(at as u32, report);
                if anim.has_ik_target() || anim.posed_by_bones() {
                    stopped = Some(at);
                    break;
                }
                // SAFETY: this thread is the only one driving; the instance's palette is not
                // read before `palettes` is dropped at the end of the run.
                unsafe { anim.pose_shared(pose_buffers, weights, &palettes, |slot, m| stream.drive(slot, m)) };
            }
        }
        let Some(ModelInstance { anim: Some(anim), slot, weights, .. }) = stopped.and_then(|at| instances.get_mut(at))
        else {
            continue;
        };
        ik_targets(anim, scene, *slot);
        if anim.posed_by_bones() {
            anim.pose_from_bones(scene, weights);
        } else {
            let driver = scene.bone_driver();
            let stream = driver.stream();
            let palettes = Streaming::new();
            // SAFETY: this thread is the only one driving; the palette is not read before
            // `palettes` is dropped at the end of this block.
            unsafe { anim.pose_shared(pose_buffers, weights, &palettes, |slot, m| stream.drive(slot, m)) };
        }
    }
    animated
}

/// The pass on the calling thread and the pool's: see [`animate`]. Returns how many instances
/// it animated.
fn animate_parallel(models: &mut ModelWorld, scene: &mut Scene, dt: f32, scale: &[f32], report: &mut Report) -> usize {
    let ModelWorld { instances, worker_buffers, crew, tail, .. } = models;
    // One set of buffers for the calling thread and one for each helper.
    let helpers = rayon::current_num_threads().saturating_sub(1).max(1);
    if worker_buffers.len() < helpers + 1 {
        worker_buffers.resize_with(helpers + 1, Default::default);
    }
    for b in worker_buffers.iter_mut() {
        if let Ok(b) = b.get_mut() {
            b.tail.clear();
        }
    }
    let animated = std::sync::atomic::AtomicUsize::new(0);
    {
        let per_task = (instances.len() / (4 * (helpers + 1))).clamp(*PARALLEL_CHUNKS.start(), *PARALLEL_CHUNKS.end());
        let chunks = std::sync::Mutex::new(instances.chunks_mut(per_task).enumerate());
        let driver = scene.bone_driver();
        // Each participant takes chunks until none is left, posing in its own buffers and
        // driving its instances' bone objects itself (`bones_disjoint`: no slot twice) through
        // its own stream, fenced on its thread when it is done; what needs the scene or the
        // frame's report (completions, events, script-posed bones) is listed for the serial
        // part below.
        let work = |buffers: &mut PoseBuffers| {
            let stream = driver.stream();
            // This thread's palettes, fenced when it is done (before the crew's join, after
            // which the calling thread reads them).
            let palettes = Streaming::new();
            while let Some((c, chunk)) = chunks.lock().ok().and_then(|mut q| q.next()) {
                let mut n = 0;
                for i in 0..chunk.len() {
                    prefetch_ahead(chunk, i);
                    let Some((anim, weights)) = chunk.get_mut(i).and_then(|inst| advance(inst, dt, scale)) else {
                        continue;
                    };
                    n += 1;
                    let bones_posed = anim.posed_by_bones();
                    if !bones_posed {
                        // SAFETY: no slot is the bone object of two live instances
                        // (`bones_disjoint`), and each instance is posed by one thread; its
                        // palette is not read before `palettes` is dropped.
                        unsafe { anim.pose_shared(buffers, weights, &palettes, |slot, m| stream.drive(slot, m)) };
                    }
                    if bones_posed || !anim.done.is_empty() || !anim.hits.is_empty() {
                        buffers.tail.push((c * per_task + i) as u32);
                    }
                }
                animated.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let share = || {
            // Buffers nobody holds (a helper left over from an earlier frame finds none
            // and stays out).
            if let Some(mut b) = worker_buffers.iter().find_map(|b| b.try_lock().ok()) {
                work(&mut b);
            }
        };
        crew.run(helpers, &share);
    }
    // In instance order, as one thread reports.
    tail.clear();
    for b in worker_buffers.iter_mut() {
        if let Ok(b) = b.get_mut() {
            tail.extend_from_slice(&b.tail);
        }
    }
    tail.sort_unstable();
    for &i in tail.iter() {
        let Some(ModelInstance { anim: Some(anim), weights, .. }) = instances.get_mut(i as usize) else { continue };
        anim.report(i, report);
        if anim.posed_by_bones() {
            anim.pose_from_bones(scene, weights);
        }
    }
    animated.into_inner()
}

impl AnimState {
    /// Moves what `advance_into_own` found into the frame's report.
    fn report(&mut self, model: u32, (finished, reports): &mut Report) {
        for (layer, c, listener) in self.done.drain(..) {
            let animation = self.rig.clip_ids.get(c.animation).copied().unwrap_or(0);
            finished.push(Finished { model, layer, animation, playback: c.playback, listener });
        }
        reports.extend(self.hits.drain(..).map(|hit| EventReport { model, hit }));
    }
}

/// Each chain's target in the model's space (the model object's current world transform).
fn ik_targets(anim: &mut AnimState, scene: &mut Scene, owner: u32) {
    if !anim.has_ik_target() {
        return;
    }
    scene.update_world_transform_of(owner);
    let to_model = scene.is_live(owner).then(|| scene.world_of(owner).inverse());
    for s in &mut anim.ik {
        let world = match s.target {
            IkTarget::None => None,
            IkTarget::Position(p) => Some(p),
            IkTarget::Object(slot) if scene.is_live(slot) => {
                scene.update_world_transform_of(slot);
                Some(Vec3::from(scene.world_of(slot).translation))
            }
            IkTarget::Object(_) => None,
        };
        s.model_target = match (world, to_model) {
            (Some(p), Some(m)) => Some(m.transform_point3(p)).filter(|p| p.is_finite()),
            _ => None,
        };
    }
}
