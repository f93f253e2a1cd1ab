
          create function glimpse_open_session(
            p_job_id text, p_cutoff text, p_sweep_before text, p_hashes text[], p_resume_token text, p_preview integer,
            p_accepts_new boolean, p_target_accepted integer, p_playlist_id integer, p_token text, p_platform text,
            p_bcheck_id integer, p_free_task integer, p_created_at text, p_participant_key text, p_worker_id text,
            p_assignment_id text, p_hit_id text, p_turk_submit_to text, p_prolific_pid text, p_study_id text,
            p_prolific_session_id text, p_email text,
            out outcome text, out o_session_id integer, out o_token text, out o_playlist_id integer, out o_load integer
          ) language plpgsql as $body$
          declare
            v_swept text;
            v_completed text;
            v_expired record;
          begin
            select swept_until into v_swept from job_loads where job_id = p_job_id for update;
            if not found then
              outcome := 'uncounted';
              return;
            end if;
            if v_swept = '' or v_swept <= p_sweep_before then
              for v_expired in
                select e.playlist_id, count(*)::integer as n from (
                  select s.playlist_id from sessions s
                  where s.job_id = p_job_id and s.created_at > v_swept and s.created_at <= p_cutoff
                    and s.completed_at is null and s.preview = 0
                  for no key update of s
                ) e group by e.playlist_id order by e.playlist_id
              loop
                update playlist_loads set running = running - v_expired.n where playlist_id = v_expired.playlist_id;
              end loop;
              update job_loads set swept_until = p_cutoff where job_id = p_job_id;
            end if;
            if cardinality(p_hashes) > 0 then
              select s.id, s.token, s.playlist_id, s.completed_at into o_session_id, o_token, o_playlist_id, v_completed
              from session_participants p join sessions s on s.id = p.session_id
              where p.job_id = p_job_id and p.participant_hash = any(p_hashes)
              order by (s.completed_at is null), s.id limit 1;
            end if;
            if o_session_id is null and p_resume_token is not null then
              select s.id, s.token, s.playlist_id, s.completed_at into o_session_id, o_token, o_playlist_id, v_completed
              from sessions s where s.token = p_resume_token and s.job_id = p_job_id and s.preview = p_preview;
            end if;
            if v_completed is not null then
              outcome := 'completed';
              return;
            end if;
            if o_session_id is not null then
              insert into session_participants (job_id, participant_hash, session_id)
              select p_job_id, h, o_session_id from unnest(p_hashes) h on conflict do nothing;
              outcome := 'resumed';
              return;
            end if;
            if not p_accepts_new and p_preview = 0 then
              outcome := 'not_open';
              return;
            end if;
            select l.playlist_id, l.included + l.running into o_playlist_id, o_load from playlist_loads l
            where l.job_id = p_job_id and (p_playlist_id is null or l.playlist_id = p_playlist_id)
            order by l.included + l.running, l.sessions, l.playlist_id limit 1;
            if o_playlist_id is null then
              outcome := 'no_playlist';
              return;
            end if;
            if p_target_accepted is not null and o_load >= p_target_accepted and p_preview = 0 then
              outcome := 'full';
              return;
            end if;
            insert into sessions (job_id, playlist_id, token, platform, bcheck_id, free_task, created_at, completed_at, verification_code, preview)
            values (p_job_id, o_playlist_id, p_token, p_platform, p_bcheck_id, p_free_task, p_created_at, null, null, p_preview)
            returning id into o_session_id;
            o_token := p_token;
            if p_preview = 0 then
              update playlist_loads set sessions = sessions + 1, running = running + 1 where playlist_id = o_playlist_id;
            end if;
            insert into session_identities (session_id, participant_key, worker_id, assignment_id, hit_id, turk_submit_to, prolific_pid, study_id, prolific_session_id, email)
            values (o_session_id, p_participant_key, p_worker_id, p_assignment_id, p_hit_id, p_turk_submit_to, p_prolific_pid, p_study_id, p_prolific_session_id, p_email);
            insert into session_participants (job_id, participant_hash, session_id) select p_job_id, h, o_session_id from unnest(p_hashes) h;
            outcome := 'opened';
          end
          $body$